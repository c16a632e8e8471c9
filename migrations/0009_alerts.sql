CREATE TABLE `alert_dependencies` (
	`device_id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`parent_device_id` text NOT NULL,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alert_dependencies_client` ON `alert_dependencies` (`client_id`);--> statement-breakpoint
CREATE TABLE `alert_events` (
	`id` integer PRIMARY KEY NOT NULL,
	`alert_id` text NOT NULL,
	`client_id` text NOT NULL,
	`at` integer NOT NULL,
	`type` text NOT NULL,
	`value` real,
	`by` text,
	`note` text,
	FOREIGN KEY (`alert_id`) REFERENCES `alerts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alert_events_alert` ON `alert_events` (`alert_id`,`at`);--> statement-breakpoint
CREATE TABLE `alert_rule_overrides` (
	`rule_id` text NOT NULL,
	`device_id` text NOT NULL,
	`client_id` text NOT NULL,
	`enabled` integer,
	`threshold` real,
	`recovery_threshold` real,
	`for_seconds` integer,
	`severity` text,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`rule_id`, `device_id`),
	FOREIGN KEY (`rule_id`) REFERENCES `alert_rules`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `alert_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`name` text NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`kind` text NOT NULL,
	`metric` text,
	`operator` text,
	`threshold` real,
	`recovery_threshold` real,
	`for_seconds` integer DEFAULT 0 NOT NULL,
	`offline_intervals` integer,
	`forecast_hours` integer,
	`severity` text NOT NULL,
	`scope_type` text DEFAULT 'all' NOT NULL,
	`scope_value` text,
	`channel_ids` text DEFAULT '[]' NOT NULL,
	`repeat_seconds` integer,
	`notify_recovery` integer DEFAULT 1 NOT NULL,
	`recovery_delay_seconds` integer DEFAULT 0 NOT NULL,
	`builtin` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alert_rules_client` ON `alert_rules` (`client_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `alert_rules_client_builtin` ON `alert_rules` (`client_id`,`builtin`);--> statement-breakpoint
CREATE TABLE `alert_settings` (
	`client_id` text PRIMARY KEY NOT NULL,
	`routing` text DEFAULT '{"warning":[],"critical":[]}' NOT NULL,
	`group_window_seconds` integer DEFAULT 60 NOT NULL,
	`defaults_created_at` integer,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `alert_silences` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`comment` text DEFAULT '' NOT NULL,
	`scope_type` text DEFAULT 'all' NOT NULL,
	`scope_value` text,
	`rule_id` text,
	`starts_at` integer,
	`ends_at` integer,
	`cron` text,
	`duration_seconds` integer,
	`timezone` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`rule_id`) REFERENCES `alert_rules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alert_silences_client` ON `alert_silences` (`client_id`);--> statement-breakpoint
CREATE TABLE `alerts` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`device_id` text NOT NULL,
	`series` text DEFAULT '' NOT NULL,
	`state` text NOT NULL,
	`severity` text NOT NULL,
	`value` real,
	`threshold` real,
	`started_at` integer NOT NULL,
	`fired_at` integer,
	`resolved_at` integer,
	`ack_by` text,
	`ack_at` integer,
	`ack_note` text,
	`suppressed_by` text,
	`context` text,
	`last_notified_at` integer,
	`recovery_due_at` integer,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`rule_id`) REFERENCES `alert_rules`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alerts_client_state` ON `alerts` (`client_id`,`state`);--> statement-breakpoint
CREATE INDEX `alerts_client_started` ON `alerts` (`client_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `alerts_device_started` ON `alerts` (`device_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `alerts_rule_started` ON `alerts` (`rule_id`,`started_at`);