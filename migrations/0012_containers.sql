CREATE TABLE `container_engines` (
	`device_id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`kind` text,
	`version` text,
	`api_version` text,
	`unavailable_reason` text,
	`memory_accounting` integer NOT NULL,
	`ts` integer NOT NULL,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `container_events` (
	`id` integer PRIMARY KEY NOT NULL,
	`container_seq` integer NOT NULL,
	`ts` integer NOT NULL,
	`kind` text NOT NULL,
	`exit_code` integer,
	`restart_count` integer,
	`engine_id` text NOT NULL,
	FOREIGN KEY (`container_seq`) REFERENCES `containers`(`seq`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `container_events_seq_ts` ON `container_events` (`container_seq`,`ts`);--> statement-breakpoint
CREATE TABLE `container_series` (
	`device_seq` integer NOT NULL,
	`level` integer NOT NULL,
	`ts` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`device_seq`, `level`, `ts`),
	FOREIGN KEY (`device_seq`) REFERENCES `devices`(`seq`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `containers` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`client_id` text NOT NULL,
	`device_id` text NOT NULL,
	`name` text NOT NULL,
	`engine_id` text NOT NULL,
	`image` text NOT NULL,
	`labels` text NOT NULL,
	`state` text NOT NULL,
	`health` text NOT NULL,
	`exit_code` integer,
	`oom_killed` integer NOT NULL,
	`restart_count` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	`cpu_percent` real,
	`memory_used_bytes` real,
	`memory_limit_bytes` real,
	`net_rx` real,
	`net_tx` real,
	`block_read` real,
	`block_write` real,
	`pids` integer,
	`attention` integer NOT NULL,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`gone_at` integer,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `containers_id` ON `containers` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `containers_device_name` ON `containers` (`device_id`,`name`);--> statement-breakpoint
CREATE INDEX `containers_client_attention` ON `containers` (`client_id`,"attention" DESC,`device_id`,`name`,`state`);--> statement-breakpoint
CREATE TABLE `disk_readings` (
	`device_id` text NOT NULL,
	`client_id` text NOT NULL,
	`name` text NOT NULL,
	`ts` integer NOT NULL,
	`model` text,
	`serial` text,
	`kind` text NOT NULL,
	`capacity_bytes` real,
	`passed` integer,
	`temperature_c` real,
	`power_on_hours` integer,
	`reallocated_sectors` integer,
	`pending_sectors` integer,
	`uncorrectable_sectors` integer,
	`nvme_percentage_used` real,
	`nvme_media_errors` integer,
	PRIMARY KEY(`device_id`, `name`, `ts`),
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `disk_readings_client_ts` ON `disk_readings` (`client_id`,`ts`);--> statement-breakpoint
CREATE TABLE `disk_reports` (
	`device_id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`available` integer NOT NULL,
	`unavailable_reason` text,
	`ts` integer NOT NULL,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade
);
