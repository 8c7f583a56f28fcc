module github.com/rebalsim/rebalsim/fidelity

go 1.26.8

require (
	github.com/rebalsim/rebalsim v0.0.0
	github.com/spf13/pflag v1.1.0
	github.com/twmb/franz-go v1.22.3
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/confluentinc/confluent-kafka-go/v2 v2.11.1 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/twmb/franz-go/pkg/kmsg v1.15.1 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)

replace github.com/rebalsim/rebalsim => ../
