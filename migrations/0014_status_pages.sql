CREATE TABLE `status_note_updates` (
	`id` text PRIMARY KEY NOT NULL,
	`note_id` text NOT NULL,
	`state` text NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`note_id`) REFERENCES `status_notes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `status_note_updates_note` ON `status_note_updates` (`note_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `status_notes` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`page_id` text NOT NULL,
	`kind` text NOT NULL,
	`title` text NOT NULL,
	`state` text NOT NULL,
	`starts_at` integer NOT NULL,
	`ends_at` integer,
	`closed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`page_id`) REFERENCES `status_pages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `status_notes_page` ON `status_notes` (`page_id`,`starts_at`);--> statement-breakpoint
CREATE TABLE `status_pages` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`theme` text DEFAULT 'auto' NOT NULL,
	`custom_domain` text,
	`published` integer DEFAULT true NOT NULL,
	`groups` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `status_pages_slug` ON `status_pages` (`slug`);--> statement-breakpoint
CREATE UNIQUE INDEX `status_pages_custom_domain` ON `status_pages` (`custom_domain`);--> statement-breakpoint
CREATE INDEX `status_pages_client` ON `status_pages` (`client_id`,`created_at`);