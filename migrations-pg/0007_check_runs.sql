CREATE TABLE "check_runs" (
	"check_id" text PRIMARY KEY NOT NULL,
	"next_at" bigint NOT NULL,
	"hub" text NOT NULL
);
