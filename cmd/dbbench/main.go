// Command dbbench benchmarks databases and their clients the same way, every time, and turns the
// results into a verdict a CI job can act on. See README.md and docs/README.md, or run `dbbench --help`.
package main

import (
	"os"

	"github.com/dbbench/dbbench/commands"
)

func main() {
	os.Exit(commands.Main(os.Args[1:], os.Stdout, os.Stderr))
}
