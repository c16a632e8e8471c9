/**
 * The copy-paste example for sending metrics without the collector: register this machine with
 * the API key, then post one complete hardware sample for it. POSIX sh and curl only (no jq):
 * the device id is cut from the answer with sed.
 */
export function curlExample(hub: string, key: string): string {
  const sample = {
    cpu_percent: 12.5,
    cpu_per_core: [10.2, 14.8, 9.6, 15.4],
    cpu_count_logical: 4,
    cpu_count_physical: 4,
    cpu_freq_current: 2400,
    cpu_freq_max: 3600,
    cpu_brand: 'Example CPU @ 2.40GHz',
    ram_total_gb: 15.5,
    ram_used_gb: 6.2,
    ram_available_gb: 9.3,
    ram_percent: 40,
    swap_total_gb: 2,
    swap_used_gb: 0.1,
    swap_percent: 5,
    disk_partitions: [{ device: '/dev/sda1', mountpoint: '/', fstype: 'ext4', total_gb: 234.1, used_gb: 81.9, free_gb: 140.3, percent: 36.9 }],
    temperatures: { coretemp: [{ label: 'Package id 0', current: 47, high: 80, critical: 100 }] },
    cpu_temp_c: 47,
  }
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  return [
    `HUB=${q(hub)}`,
    `KEY=${q(key)}`,
    '# 1. register this machine; the answer names its device_id',
    `DEVICE_ID=$(curl -fsS -X POST "$HUB/v1/clients/me/devices" \\`,
    `  -H "x-api-key: $KEY" -H 'content-type: application/json' \\`,
    `  -d "{\\"hostname\\":\\"$(hostname)\\",\\"os\\":\\"$(uname -s)\\",\\"os_version\\":\\"$(uname -r)\\",\\"arch\\":\\"$(uname -m)\\",\\"fingerprint\\":\\"$(hostname)-curl\\"}" \\`,
    `  | sed -n 's/.*"device_id":"\\([^"]*\\)".*/\\1/p')`,
    '# 2. post a hardware sample for it',
    `curl -fsS -X POST "$HUB/v1/metrics/hardware" \\`,
    `  -H "x-api-key: $KEY" -H "x-device-id: $DEVICE_ID" -H 'content-type: application/json' \\`,
    `  -d ${q(JSON.stringify(sample))}`,
  ].join('\n')
}
