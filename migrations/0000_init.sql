CREATE TABLE `clients` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text,
	`platform` text,
	`plan_type` text DEFAULT 'free' NOT NULL,
	`subscription_status` text DEFAULT 'none' NOT NULL,
	`max_devices` integer DEFAULT 1 NOT NULL,
	`max_users` integer DEFAULT 50 NOT NULL,
	`rate_limit` integer,
	`billing_email` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `members` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`user_id` text,
	`invited_email` text,
	`role` text DEFAULT 'member' NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `members_client_user` ON `members` (`client_id`,`user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `members_client_invited_email` ON `members` (`client_id`,`invited_email`);--> statement-breakpoint
CREATE INDEX `members_user` ON `members` (`user_id`);--> statement-breakpoint
CREATE TABLE `refresh_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`family_id` text NOT NULL,
	`client_id` text,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`revoked_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `refresh_tokens_token_hash_unique` ON `refresh_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `refresh_tokens_family` ON `refresh_tokens` (`family_id`);--> statement-breakpoint
CREATE INDEX `refresh_tokens_user` ON `refresh_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`client_id` text,
	`role` text DEFAULT 'user' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`name` text NOT NULL,
	`key_prefix` text NOT NULL,
	`key_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`device_id` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`expires_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_client` ON `api_keys` (`client_id`);--> statement-breakpoint
CREATE TABLE `devices` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`fingerprint` text NOT NULL,
	`hostname` text,
	`os` text,
	`os_version` text,
	`arch` text,
	`mac_address` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`last_seen_at` integer,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `devices_client_fingerprint` ON `devices` (`client_id`,`fingerprint`);--> statement-breakpoint
CREATE TABLE `billing_accounts` (
	`client_id` text PRIMARY KEY NOT NULL,
	`provider_customer_id` text,
	`provider_subscription_id` text,
	`subscription_status` text DEFAULT 'none' NOT NULL,
	`plan_id` text,
	`amount` integer,
	`currency` text,
	`interval` text,
	`current_period_start` integer,
	`current_period_end` integer,
	`cancel_at_period_end` integer DEFAULT false NOT NULL,
	`last_event_at` integer,
	`observed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `billing_accounts_provider_customer_id_unique` ON `billing_accounts` (`provider_customer_id`);--> statement-breakpoint
CREATE TABLE `billing_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`outcome` text NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `billing_events_received` ON `billing_events` (`received_at`);--> statement-breakpoint
CREATE TABLE `billing_payments` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`provider_invoice_id` text NOT NULL,
	`provider_subscription_id` text,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`status` text NOT NULL,
	`description` text,
	`period_start` integer,
	`period_end` integer,
	`invoice_url` text,
	`invoice_pdf` text,
	`paid_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `billing_payments_provider_invoice_id_unique` ON `billing_payments` (`provider_invoice_id`);--> statement-breakpoint
CREATE INDEX `billing_payments_client_created` ON `billing_payments` (`client_id`,`created_at`);--> statement-breakpoint
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
CREATE INDEX `ai_usage_client_created` ON `ai_usage` (`client_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `collector_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`platform` text NOT NULL,
	`version` text NOT NULL,
	`build_number` integer,
	`release_notes` text,
	`download_url` text,
	`is_mandatory` integer DEFAULT false NOT NULL,
	`published_by` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `collector_versions_platform_version` ON `collector_versions` (`platform`,`version`);