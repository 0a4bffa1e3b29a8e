// Command dbbench benchmarks databases and their clients the same way, every time, and turns the
// results into a verdict a CI job can act on. See README.md, or run `dbbench --help`.
package main

import (
	"os"

	"github.com/dbbench/dbbench/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
