CREATE TABLE `metric_late` (
	`kind` text PRIMARY KEY NOT NULL,
	`from_ts` integer NOT NULL,
	`to_ts` integer NOT NULL,
	`writes` integer DEFAULT 1 NOT NULL
);
