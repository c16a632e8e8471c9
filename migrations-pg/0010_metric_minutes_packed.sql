CREATE TABLE "metric_hw_1m_packed" (
	"span" bigint NOT NULL,
	"device_seq" bigint NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "metric_hw_1m_packed_span_device_seq_pk" PRIMARY KEY("span","device_seq")
);
--> statement-breakpoint
CREATE TABLE "metric_net_1m_packed" (
	"span" bigint NOT NULL,
	"device_seq" bigint NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "metric_net_1m_packed_span_device_seq_pk" PRIMARY KEY("span","device_seq")
);
--> statement-breakpoint
ALTER TABLE "metric_hw_1m_packed" ADD CONSTRAINT "metric_hw_1m_packed_device_seq_devices_seq_fk" FOREIGN KEY ("device_seq") REFERENCES "public"."devices"("seq") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "metric_net_1m_packed" ADD CONSTRAINT "metric_net_1m_packed_device_seq_devices_seq_fk" FOREIGN KEY ("device_seq") REFERENCES "public"."devices"("seq") ON DELETE cascade ON UPDATE no action;