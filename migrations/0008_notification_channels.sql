CREATE TABLE `channel_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`delivery_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`http_status` integer,
	`outcome` text NOT NULL,
	`error` text,
	`excerpt` text,
	FOREIGN KEY (`delivery_id`) REFERENCES `channel_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `channel_attempts_delivery` ON `channel_attempts` (`delivery_id`,`attempt`);--> statement-breakpoint
CREATE TABLE `channel_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`event` text NOT NULL,
	`severity` text NOT NULL,
	`notification` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `channel_deliveries_due` ON `channel_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `channel_deliveries_channel` ON `channel_deliveries` (`channel_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `channels` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`config` text NOT NULL,
	`secrets_enc` text,
	`enabled` integer DEFAULT true NOT NULL,
	`min_severity` text DEFAULT 'info' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `channels_client` ON `channels` (`client_id`,`created_at`);