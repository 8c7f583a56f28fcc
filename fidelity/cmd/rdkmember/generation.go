package main

// librdkafka keeps the generation (classic protocol) or member epoch
// (consumer protocol) in its consumer group metadata, which the Go
// binding hands out only serialised. rd_kafka_consumer_group_metadata_read
// and _generation_id are librdkafka's public API for it (rdkafka.h); the
// symbols come from the static librdkafka the binding links, so they are
// declared here rather than included.

/*
#include <stdint.h>
#include <stddef.h>
typedef struct rd_kafka_consumer_group_metadata_s rd_kafka_consumer_group_metadata_t;
typedef struct rd_kafka_error_s rd_kafka_error_t;
rd_kafka_error_t *rd_kafka_consumer_group_metadata_read(rd_kafka_consumer_group_metadata_t **cgmdp, const void *buffer, size_t size);
int32_t rd_kafka_consumer_group_metadata_generation_id(const rd_kafka_consumer_group_metadata_t *cgmd);
void rd_kafka_consumer_group_metadata_destroy(rd_kafka_consumer_group_metadata_t *cgmd);
void rd_kafka_error_destroy(rd_kafka_error_t *error);
*/
import "C"

import (
	"errors"
	"unsafe"
)

// generationOf reads the generation or member epoch out of serialised
// consumer group metadata.
func generationOf(serialized []byte) (int, error) {
	if len(serialized) == 0 {
		return 0, errors.New("empty consumer group metadata")
	}
	var md *C.rd_kafka_consumer_group_metadata_t
	if e := C.rd_kafka_consumer_group_metadata_read(&md, unsafe.Pointer(&serialized[0]), C.size_t(len(serialized))); e != nil {
		C.rd_kafka_error_destroy(e)
		return 0, errors.New("librdkafka cannot read its consumer group metadata")
	}
	defer C.rd_kafka_consumer_group_metadata_destroy(md)
	return int(C.rd_kafka_consumer_group_metadata_generation_id(md)), nil
}
