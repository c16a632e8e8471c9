CREATE TABLE `metric_hw_1m_packed` (
	`key` integer PRIMARY KEY NOT NULL,
	`span` integer NOT NULL,
	`device_seq` integer NOT NULL,
	`data` blob NOT NULL,
	FOREIGN KEY (`device_seq`) REFERENCES `devices`(`seq`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `metric_net_1m_packed` (
	`key` integer PRIMARY KEY NOT NULL,
	`span` integer NOT NULL,
	`device_seq` integer NOT NULL,
	`data` blob NOT NULL,
	FOREIGN KEY (`device_seq`) REFERENCES `devices`(`seq`) ON UPDATE no action ON DELETE cascade
);
