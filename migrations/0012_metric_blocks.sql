CREATE TABLE `metric_blocks` (
	`device_seq` integer NOT NULL,
	`start` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`device_seq`, `start`),
	FOREIGN KEY (`device_seq`) REFERENCES `devices`(`seq`) ON UPDATE no action ON DELETE cascade
);
