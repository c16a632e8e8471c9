-- A device's sample is identified by its time from now on: rows that share (device_seq, ts) are one
-- sample stored more than once (a collector's retry or replay). Each such group keeps its first row,
-- completed with the other kind's part when only a later row had it; the rest are deleted. One pass over
-- the (device_seq, ts) index finds the groups, whatever the table's size.
CREATE TEMP TABLE __dup_samples AS SELECT device_seq, ts, min(id) AS keep FROM metric_samples GROUP BY device_seq, ts HAVING count(*) > 1;--> statement-breakpoint
UPDATE metric_samples AS k SET kinds = k.kinds | 1, cpu_percent = o.cpu_percent, cpu_count_logical = o.cpu_count_logical, cpu_count_physical = o.cpu_count_physical, cpu_freq_current = o.cpu_freq_current, cpu_freq_max = o.cpu_freq_max, ram_total_gb = o.ram_total_gb, ram_used_gb = o.ram_used_gb, ram_available_gb = o.ram_available_gb, ram_percent = o.ram_percent, swap_total_gb = o.swap_total_gb, swap_used_gb = o.swap_used_gb, swap_percent = o.swap_percent, cpu_temp_c = o.cpu_temp_c, gpu_load = o.gpu_load, disk_used_percent = o.disk_used_percent, hw_rest = o.hw_rest
FROM __dup_samples d JOIN metric_samples o ON o.id = (SELECT min(x.id) FROM metric_samples x WHERE x.device_seq = d.device_seq AND x.ts = d.ts AND x.kinds & 1)
WHERE k.id = d.keep AND k.kinds & 1 = 0;--> statement-breakpoint
UPDATE metric_samples AS k SET kinds = k.kinds | 2, upload_mbps = o.upload_mbps, download_mbps = o.download_mbps, bytes_sent_total = o.bytes_sent_total, bytes_recv_total = o.bytes_recv_total, packets_sent = o.packets_sent, packets_recv = o.packets_recv, errin = o.errin, errout = o.errout, dropin = o.dropin, dropout = o.dropout, latency_avg_ms = o.latency_avg_ms, latency_min_ms = o.latency_min_ms, latency_max_ms = o.latency_max_ms, packet_loss_percent = o.packet_loss_percent, dns_resolve_ms = o.dns_resolve_ms, net_rest = o.net_rest
FROM __dup_samples d JOIN metric_samples o ON o.id = (SELECT min(x.id) FROM metric_samples x WHERE x.device_seq = d.device_seq AND x.ts = d.ts AND x.kinds & 2)
WHERE k.id = d.keep AND k.kinds & 2 = 0;--> statement-breakpoint
DELETE FROM metric_samples WHERE id IN (SELECT s.id FROM __dup_samples d JOIN metric_samples s ON s.device_seq = d.device_seq AND s.ts = d.ts AND s.id <> d.keep);--> statement-breakpoint
DROP TABLE __dup_samples;--> statement-breakpoint
DROP INDEX `metric_samples_device_ts`;--> statement-breakpoint
CREATE UNIQUE INDEX `metric_samples_device_ts` ON `metric_samples` (`device_seq`,`ts`);
