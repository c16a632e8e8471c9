CREATE TABLE "hub_runs" (
	"hub" text PRIMARY KEY NOT NULL,
	"started_at" bigint NOT NULL,
	"last_beat_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "hub_runs_last_beat_at" ON "hub_runs" USING btree ("last_beat_at");