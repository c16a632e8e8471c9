CREATE TABLE `metric_blocks` (
	`device_seq` integer NOT NULL,
	`start` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`device_seq`, `start`),
	FOREIGN KEY (`device_seq`) REFERENCES `devices`(`seq`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `metric_hot_0` (
	`id` integer PRIMARY KEY NOT NULL,
	`device_seq` integer NOT NULL,
	`sample_id` integer NOT NULL,
	`ts` integer NOT NULL,
	`kinds` integer NOT NULL,
	`segment` integer NOT NULL,
	`data` blob NOT NULL
);
--> statement-breakpoint
CREATE TABLE `metric_hot_1` (
	`id` integer PRIMARY KEY NOT NULL,
	`device_seq` integer NOT NULL,
	`sample_id` integer NOT NULL,
	`ts` integer NOT NULL,
	`kinds` integer NOT NULL,
	`segment` integer NOT NULL,
	`data` blob NOT NULL
);
--> statement-breakpoint
CREATE TABLE `metric_hot_2` (
	`id` integer PRIMARY KEY NOT NULL,
	`device_seq` integer NOT NULL,
	`sample_id` integer NOT NULL,
	`ts` integer NOT NULL,
	`kinds` integer NOT NULL,
	`segment` integer NOT NULL,
	`data` blob NOT NULL
);
--> statement-breakpoint
CREATE TABLE `metric_hot_3` (
	`id` integer PRIMARY KEY NOT NULL,
	`device_seq` integer NOT NULL,
	`sample_id` integer NOT NULL,
	`ts` integer NOT NULL,
	`kinds` integer NOT NULL,
	`segment` integer NOT NULL,
	`data` blob NOT NULL
);
--> statement-breakpoint
CREATE TABLE `metric_nested` (
	`device_seq` integer NOT NULL,
	`start` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`device_seq`, `start`),
	FOREIGN KEY (`device_seq`) REFERENCES `devices`(`seq`) ON UPDATE no action ON DELETE cascade
);
