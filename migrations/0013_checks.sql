CREATE TABLE `check_days` (
	`check_seq` integer NOT NULL,
	`day` integer NOT NULL,
	`total` integer NOT NULL,
	`ok` integer NOT NULL,
	`sum_ms` integer NOT NULL,
	`n_ms` integer NOT NULL,
	`max_ms` integer,
	`hist` blob,
	PRIMARY KEY(`check_seq`, `day`)
);
--> statement-breakpoint
CREATE TABLE `check_hours` (
	`check_seq` integer NOT NULL,
	`hour` integer NOT NULL,
	`total` integer NOT NULL,
	`ok` integer NOT NULL,
	`sum_ms` integer NOT NULL,
	`n_ms` integer NOT NULL,
	`max_ms` integer,
	PRIMARY KEY(`check_seq`, `hour`)
);
--> statement-breakpoint
CREATE TABLE `check_incidents` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`check_id` text NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`cause` text,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`check_id`) REFERENCES `checks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `check_incidents_check` ON `check_incidents` (`check_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `check_places` (
	`check_seq` integer NOT NULL,
	`place` integer NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`fails` integer DEFAULT 0 NOT NULL,
	`successes` integer DEFAULT 0 NOT NULL,
	`last_ts` integer,
	`last_ok` integer,
	`last_response_ms` real,
	`last_error` text,
	PRIMARY KEY(`check_seq`, `place`)
);
--> statement-breakpoint
CREATE TABLE `check_results` (
	`check_seq` integer NOT NULL,
	`place` integer NOT NULL,
	`ts` integer NOT NULL,
	`ok` integer NOT NULL,
	`response_ms` integer,
	`status_code` integer,
	`error` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `check_results_key` ON `check_results` (`check_seq`,`ts`,`place`);--> statement-breakpoint
CREATE TABLE `checks` (
	`id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`client_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`settings` text NOT NULL,
	`interval_s` integer NOT NULL,
	`timeout_ms` integer NOT NULL,
	`down_after` integer NOT NULL,
	`up_after` integer NOT NULL,
	`run_on_hub` integer NOT NULL,
	`device_ids` text DEFAULT '[]' NOT NULL,
	`depends_on_device_id` text,
	`paused` integer DEFAULT 0 NOT NULL,
	`hb_token_hash` text,
	`hb_token_hint` text,
	`state` text DEFAULT 'pending' NOT NULL,
	`state_since` integer,
	`last_checked_at` integer,
	`last_response_ms` real,
	`last_status_code` integer,
	`last_error` text,
	`cert_expires_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`depends_on_device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `checks_client` ON `checks` (`client_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `checks_seq` ON `checks` (`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `checks_hb_token` ON `checks` (`hb_token_hash`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_alerts` (
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
	FOREIGN KEY (`rule_id`) REFERENCES `alert_rules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_alerts`("id", "client_id", "rule_id", "device_id", "series", "state", "severity", "value", "threshold", "started_at", "fired_at", "resolved_at", "ack_by", "ack_at", "ack_note", "suppressed_by", "context", "last_notified_at", "recovery_due_at") SELECT "id", "client_id", "rule_id", "device_id", "series", "state", "severity", "value", "threshold", "started_at", "fired_at", "resolved_at", "ack_by", "ack_at", "ack_note", "suppressed_by", "context", "last_notified_at", "recovery_due_at" FROM `alerts`;--> statement-breakpoint
DROP TABLE `alerts`;--> statement-breakpoint
ALTER TABLE `__new_alerts` RENAME TO `alerts`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `alerts_client_state` ON `alerts` (`client_id`,`state`);--> statement-breakpoint
CREATE INDEX `alerts_client_started` ON `alerts` (`client_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `alerts_device_started` ON `alerts` (`device_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `alerts_rule_started` ON `alerts` (`rule_id`,`started_at`);