ALTER TABLE `clients` ADD `max_devices_override` integer;--> statement-breakpoint
ALTER TABLE `clients` ADD `max_users_override` integer;