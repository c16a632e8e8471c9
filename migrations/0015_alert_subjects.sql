PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_alerts` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`device_id` text NOT NULL,
	`series` text DEFAULT '' NOT NULL,
	`state` text NOT NULL,
	`severity` text NOT NULL,
	`value` real,
	`threshold` real,
	`started_at` integer NOT NULL,
	`fired_at` integer,
	`resolved_at` integer,
	`ack_by` text,
	`ack_at` integer,
	`ack_note` text,
	`suppressed_by` text,
	`context` text,
	`last_notified_at` integer,
	`recovery_due_at` integer,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`rule_id`) REFERENCES `alert_rules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_alerts`("id", "client_id", "rule_id", "device_id", "series", "state", "severity", "value", "threshold", "started_at", "fired_at", "resolved_at", "ack_by", "ack_at", "ack_note", "suppressed_by", "context", "last_notified_at", "recovery_due_at") SELECT "id", "client_id", "rule_id", "device_id", "series", "state", "severity", "value", "threshold", "started_at", "fired_at", "resolved_at", "ack_by", "ack_at", "ack_note", "suppressed_by", "context", "last_notified_at", "recovery_due_at" FROM `alerts`;--> statement-breakpoint
DROP TABLE `alerts`;--> statement-breakpoint
ALTER TABLE `__new_alerts` RENAME TO `alerts`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `alerts_client_state` ON `alerts` (`client_id`,`state`);--> statement-breakpoint
CREATE INDEX `alerts_client_started` ON `alerts` (`client_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `alerts_device_started` ON `alerts` (`device_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `alerts_rule_started` ON `alerts` (`rule_id`,`started_at`);--> statement-breakpoint
DROP INDEX `containers_client_attention`;--> statement-breakpoint
CREATE INDEX `containers_client_attention` ON `containers` (`client_id`,"attention" DESC,`device_id`,`name`,`state`);