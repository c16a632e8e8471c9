CREATE TABLE `metric_block_index` (
	`device_seq` integer NOT NULL,
	`start` integer NOT NULL,
	`file` integer NOT NULL,
	`at` integer NOT NULL,
	`length` integer NOT NULL,
	`nested_length` integer NOT NULL,
	PRIMARY KEY(`device_seq`, `start`),
	FOREIGN KEY (`device_seq`) REFERENCES `devices`(`seq`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `metric_block_index_file` ON `metric_block_index` (`file`);--> statement-breakpoint
CREATE TABLE `metric_block_wipes` (
	`id` integer PRIMARY KEY NOT NULL,
	`file` integer NOT NULL,
	`at` integer NOT NULL,
	`length` integer NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `metric_block_index_device_gone` BEFORE DELETE ON `devices` BEGIN INSERT INTO `metric_block_wipes` (`file`, `at`, `length`) SELECT `file`, `at`, 16 + `length` + `nested_length` FROM `metric_block_index` WHERE `device_seq` = OLD.`seq`; END;
