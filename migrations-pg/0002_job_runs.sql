CREATE TABLE "job_runs" (
	"job" text NOT NULL,
	"slot" bigint NOT NULL,
	"hub" text NOT NULL,
	"claimed_at" bigint NOT NULL,
	"lease_until" bigint NOT NULL,
	"finished_at" bigint,
	CONSTRAINT "job_runs_job_slot_pk" PRIMARY KEY("job","slot")
);
--> statement-breakpoint
CREATE INDEX "job_runs_lease" ON "job_runs" USING btree ("job","lease_until");