CREATE TABLE `device_seen` (
	`seq` integer PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`seq`) REFERENCES `devices`(`seq`) ON UPDATE no action ON DELETE cascade
);
