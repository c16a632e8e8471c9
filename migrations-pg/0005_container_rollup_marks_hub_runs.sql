CREATE TABLE "container_rollup_marks" (
	"device_seq" bigint NOT NULL,
	"level" integer NOT NULL,
	"since" bigint NOT NULL,
	CONSTRAINT "container_rollup_marks_device_seq_level_pk" PRIMARY KEY("device_seq","level")
);
--> statement-breakpoint
CREATE TABLE "hub_runs" (
	"hub" text PRIMARY KEY NOT NULL,
	"started_at" bigint NOT NULL,
	"last_beat_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "hub_runs_last_beat_at" ON "hub_runs" USING btree ("last_beat_at");