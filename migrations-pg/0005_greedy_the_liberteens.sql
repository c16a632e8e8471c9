CREATE TABLE "container_rollup_marks" (
	"device_seq" bigint NOT NULL,
	"level" integer NOT NULL,
	"since" bigint NOT NULL,
	CONSTRAINT "container_rollup_marks_device_seq_level_pk" PRIMARY KEY("device_seq","level")
);
