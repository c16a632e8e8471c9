CREATE TABLE `check_packs` (
	`check_seq` integer NOT NULL,
	`hour` integer NOT NULL,
	`place` integer NOT NULL,
	`n` integer NOT NULL,
	`ok` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`check_seq`, `hour`, `place`)
);
