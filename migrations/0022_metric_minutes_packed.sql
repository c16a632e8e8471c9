CREATE TABLE `metric_hw_1m_packed` (
	`span` integer NOT NULL,
	`device_seq` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`span`, `device_seq`),
	FOREIGN KEY (`device_seq`) REFERENCES `devices`(`seq`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `metric_net_1m_packed` (
	`span` integer NOT NULL,
	`device_seq` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`span`, `device_seq`),
	FOREIGN KEY (`device_seq`) REFERENCES `devices`(`seq`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
