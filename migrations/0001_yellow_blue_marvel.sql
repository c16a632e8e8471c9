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
CREATE UNIQUE INDEX `collector_versions_platform_version` ON `collector_versions` (`platform`,`version`);--> statement-breakpoint
ALTER TABLE `refresh_tokens` ADD `client_id` text;