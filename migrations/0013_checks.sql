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
CREATE UNIQUE INDEX `checks_hb_token` ON `checks` (`hb_token_hash`);