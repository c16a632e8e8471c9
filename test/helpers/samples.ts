/** Realistic collector bodies (~1.5 KB as a batch), shared by tests and the bench. */
export function hardwareSample(i = 0) {
  return {
    cpu_percent: 20 + (i % 50),
    cpu_per_core: [12.5, 30.1, 8.4, 55.2],
    cpu_count_logical: 4,
    cpu_count_physical: 4,
    cpu_freq_current: 1500,
    cpu_freq_max: 1800,
    cpu_brand: 'Cortex-A72',
    ram_total_gb: 7.6,
    ram_used_gb: 3.1 + (i % 10) / 10,
    ram_available_gb: 4.4,
    ram_percent: 41.2,
    swap_total_gb: 1,
    swap_used_gb: 0.1,
    swap_percent: 10,
    gpus: [],
    disk_partitions: [
      { device: '/dev/mmcblk0p2', mountpoint: '/', fstype: 'ext4', total_gb: 58.3, used_gb: 21.4, free_gb: 34.5, percent: 38.3 },
      { device: '/dev/mmcblk0p1', mountpoint: '/boot/firmware', fstype: 'vfat', total_gb: 0.5, used_gb: 0.06, free_gb: 0.44, percent: 12.1 },
    ],
    disk_io: { read_bytes: 1234567890, write_bytes: 987654321, read_count: 123456, write_count: 65432 },
    temperatures: { cpu_thermal: [{ label: '', current: 48.2, high: 80, critical: 85 }] },
    fans: {},
    cpu_temp_c: 48.2,
    gpu_name: null,
    gpu_load: null,
  }
}

export function networkSample(i = 0) {
  return {
    upload_mbps: 1.2,
    download_mbps: 8.4,
    bytes_sent_total: 1_000_000 + i * 1000,
    bytes_recv_total: 5_000_000 + i * 5000,
    packets_sent: 12000 + i,
    packets_recv: 34000 + i,
    errin: 0,
    errout: 0,
    dropin: 0,
    dropout: 0,
    latency_avg_ms: 12.3,
    latency_min_ms: 10.1,
    latency_max_ms: 18.7,
    packet_loss_percent: 0,
    dns_resolve_ms: 4.2,
    wifi: { ssid: 'office', signal_dbm: -54, frequency_ghz: 5 },
    connections: [{ laddr: '10.0.0.5:22', raddr: '10.0.0.9:51234', status: 'ESTABLISHED' }],
    interfaces: [{ name: 'eth0', is_up: true, speed_mbps: 1000, bytes_sent: 1000000, bytes_recv: 5000000 }],
  }
}
