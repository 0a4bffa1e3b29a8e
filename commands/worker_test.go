package commands

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/dbbench/dbbench/adapters"
)

// runWorkerMain makes the test binary serve as dbbench for the worker processes that `run` starts
// (a run of several runs, isolation: process): with no Factory.Worker, run starts this very
// executable with "run ..." as its arguments. The worker has the built-in adapters and missingServer;
// tests of other test adapters use --runs 1.
func runWorkerMain() {
	if len(os.Args) < 2 || os.Args[1] != "run" {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := &Factory{Out: os.Stdout, Err: os.Stderr, Registry: func() (*adapters.Registry, error) {
		return adapters.NewRegistry(append(builtinAdapters(), missingServer{})...)
	}}
	os.Exit(executeWithin(ctx, f, os.Args[1:], workerInterruptGrace))
}
