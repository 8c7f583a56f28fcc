module rebalsim

go 1.26.8
