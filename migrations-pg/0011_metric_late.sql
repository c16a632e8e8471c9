-- Hubs before this one made metric_late themselves when they first wrote samples (from_ts and
-- to_ts NOT NULL, no rolling span): taken as it is, its columns made as below.
CREATE TABLE IF NOT EXISTS "metric_late" (
	"kind" text PRIMARY KEY NOT NULL,
	"from_ts" bigint,
	"to_ts" bigint,
	"rolling_from" bigint,
	"rolling_to" bigint
);
--> statement-breakpoint
ALTER TABLE "metric_late" ALTER COLUMN "from_ts" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "metric_late" ALTER COLUMN "to_ts" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "metric_late" ADD COLUMN IF NOT EXISTS "rolling_from" bigint;
--> statement-breakpoint
ALTER TABLE "metric_late" ADD COLUMN IF NOT EXISTS "rolling_to" bigint;
