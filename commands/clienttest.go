package commands

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbbench/dbbench/commands/clienttest"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/internal/postgres"
	"github.com/dbbench/dbbench/report/render"
)

// ClientTestOptions are the arguments and flags of `dbbench client-test`.
type ClientTestOptions struct {
	f        *Factory
	Command  []string
	Size     int
	Client   []string // KEY=VALUE
	Postgres bool
	Timeout  time.Duration
}

// NewClientTestCmd builds `dbbench client-test`. runF replaces the run function in tests of flag parsing.
func NewClientTestCmd(f *Factory, runF func(*ClientTestOptions) error) *cobra.Command {
	opts := &ClientTestOptions{f: f}
	cmd := &cobra.Command{
		Use:   "client-test [--size N] [--client KEY=VALUE]... [--postgres] [--timeout D] -- CMD [ARGS...]",
		Short: "Check that a client speaks the protocol (docs/protocol.md)",
		Long: `client-test is the conformance kit for clients in other languages (adapter exec). It starts
CMD and drives it through every message of the protocol on a small dataset: hello, open, load, ping,
scan (whole and partial), lookups, insert (twice, each into a fresh store), concurrent readers, every
workload the client declares, an unknown op and a malformed request (each must get an error reply,
after which the client must still answer), close, then in a second process a hello with an
unsupported version (refused with an error reply) and the end of its input without close (it must
exit within 5 s). Every checksum is checked exactly against the dataset. It prints one line per
check (wrapped to 120 columns; the client's info one fact a line below open) and a summary.

--postgres starts a throwaway PostgreSQL server and gives the client a schema on it, as a target
with postgres: true gets.

Exit codes: 0 every check passed; 1 a check failed; 2 usage; 3 the client could not be started (or
the PostgreSQL server could not).`,
		Example: `  dbbench client-test -- go run ./clients/go/cmd/dbbench-client lmdb
  dbbench client-test --client map_size=1GiB -- node clients/node/bin/dbbench-client.js lmdb
  dbbench client-test --postgres -- /usr/bin/python3 clients/python/dbbench-client.py psycopg2`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 0 || len(args) == 0 {
				return exitcode.Usagef("give the client's command after --, e.g. dbbench client-test -- node client.js")
			}
			opts.Command = args
			if runF != nil {
				return runF(opts)
			}
			return runClientTest(cmd, opts)
		},
	}
	cmd.Flags().IntVar(&opts.Size, "size", 1000, "persons in the dataset")
	cmd.Flags().StringArrayVar(&opts.Client, "client", nil, "a client option KEY=VALUE passed in open (repeatable)")
	cmd.Flags().BoolVar(&opts.Postgres, "postgres", false, "start a throwaway PostgreSQL server and give the client a schema on it")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 60*time.Second, "longest wait for one reply")
	return cmd
}

// clientOptions parses --client KEY=VALUE pairs; values stay strings.
func clientOptions(pairs []string) (map[string]any, error) {
	m := map[string]any{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, exitcode.Usagef("--client %q: want KEY=VALUE", p)
		}
		m[k] = v
	}
	return m, nil
}

func runClientTest(cmd *cobra.Command, opts *ClientTestOptions) error {
	if opts.Size < 1 {
		return exitcode.Usagef("--size must be at least 1, got %d", opts.Size)
	}
	if opts.Timeout <= 0 {
		return exitcode.Usagef("--timeout must be positive, got %s", opts.Timeout)
	}
	client, err := clientOptions(opts.Client)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	logf := wrappedLog(opts.f.Err, "client: ")
	ko := clienttest.Options{
		Command: opts.Command, Size: opts.Size, Client: client, Timeout: opts.Timeout,
		TempDir: opts.f.TempDir, Out: opts.f.Out, Logf: logf,
	}
	if opts.Postgres {
		srv, err := postgres.Start(ctx, postgres.Options{TempDir: opts.f.TempDir, Logf: wrappedLog(opts.f.Err, "postgres: ")})
		if err != nil {
			return exitcode.AsInfra(fmt.Errorf("start a throwaway PostgreSQL server: %w", err))
		}
		defer srv.Stop()
		ko.DSN = srv.DSN("postgres")
	}
	res, err := clienttest.Run(ctx, ko)
	if err != nil {
		if errors.Is(err, clienttest.ErrStart) {
			return exitcode.AsInfra(err)
		}
		return err
	}
	if res.Failed > 0 {
		return &silentError{code: exitcode.Failed}
	}
	if res.Undecided > 0 {
		return &silentError{code: exitcode.Inconclusive}
	}
	return nil
}

// wrappedLog prints log lines (a client's stderr, the PostgreSQL server's) after prefix, each wrapped
// to fit the terminal.
func wrappedLog(w io.Writer, prefix string) func(format string, args ...any) {
	return func(format string, args ...any) {
		for _, l := range strings.Split(strings.TrimRight(fmt.Sprintf(format, args...), "\n"), "\n") {
			fmt.Fprintln(w, render.Wrap(prefix+l, render.DefaultWidth, "  "))
		}
	}
}
