CREATE TABLE "login_throttle" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" bigint NOT NULL,
	"last_failure" bigint NOT NULL,
	"locked_until" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "setup_tokens" (
	"slot" text PRIMARY KEY NOT NULL,
	"hash" text NOT NULL,
	"made_at" bigint NOT NULL,
	"hub" text NOT NULL
);
