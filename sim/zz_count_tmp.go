package sim

import (
	"fmt"
	"os"
)

var cnt = map[string]int{}

func dumpCnt() {
	for k, v := range cnt {
		fmt.Fprintln(os.Stderr, k, v)
	}
}
