module github.com/rebalsim/rebalsim/fidelity

go 1.26.8

require (
	github.com/rebalsim/rebalsim v0.0.0
	github.com/spf13/pflag v1.1.0
	gopkg.in/yaml.v3 v3.0.1
)

require gonum.org/v1/gonum v0.17.0 // indirect

replace github.com/rebalsim/rebalsim => ../
