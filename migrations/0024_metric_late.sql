CREATE TABLE `metric_late` (
	`kind` text PRIMARY KEY NOT NULL,
	`from_ts` integer,
	`to_ts` integer,
	`rolling_from` integer,
	`rolling_to` integer
);
