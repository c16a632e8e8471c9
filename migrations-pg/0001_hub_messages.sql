CREATE TABLE "hub_messages" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "hub_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"created_at" bigint NOT NULL,
	"body" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "hub_messages_created_at" ON "hub_messages" USING btree ("created_at");