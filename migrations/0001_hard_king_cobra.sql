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
CREATE INDEX `billing_payments_client_created` ON `billing_payments` (`client_id`,`created_at`);