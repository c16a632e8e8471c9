CREATE TABLE `recommendations` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`device_id` text,
	`recommendation` text NOT NULL,
	`category` text DEFAULT 'general' NOT NULL,
	`severity` text DEFAULT 'info' NOT NULL,
	`source` text NOT NULL,
	`evidence` text,
	`dedupe_key` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `recommendations_client_device_created` ON `recommendations` (`client_id`,`device_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `recommendations_dedupe` ON `recommendations` (`client_id`,`device_id`,`dedupe_key`,`created_at`);--> statement-breakpoint
CREATE TABLE `ai_configs` (
	`client_id` text PRIMARY KEY NOT NULL,
	`provider` text,
	`model` text,
	`base_url` text,
	`api_key_enc` text,
	`temperature` real,
	`max_tokens` integer,
	`schedule` text,
	`enabled` integer DEFAULT true NOT NULL,
	`prompt` text,
	`last_run_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `ai_usage` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`device_id` text,
	`kind` text NOT NULL,
	`provider` text NOT NULL,
	`model` text,
	`tokens_in` integer,
	`tokens_out` integer,
	`latency_ms` integer,
	`status` text NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ai_usage_client_created` ON `ai_usage` (`client_id`,`created_at`);