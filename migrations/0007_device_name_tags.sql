ALTER TABLE `devices` ADD `name` text;--> statement-breakpoint
ALTER TABLE `devices` ADD `tags` text DEFAULT '[]' NOT NULL;