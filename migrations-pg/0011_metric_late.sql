-- Hubs before this one made metric_late themselves when they first wrote samples (without writes):
-- taken as it is, with the column added.
CREATE TABLE IF NOT EXISTS "metric_late" (
	"kind" text PRIMARY KEY NOT NULL,
	"from_ts" bigint NOT NULL,
	"to_ts" bigint NOT NULL,
	"writes" bigint DEFAULT 1 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "metric_late" ADD COLUMN IF NOT EXISTS "writes" bigint DEFAULT 1 NOT NULL;
