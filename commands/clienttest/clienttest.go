// Package clienttest is the conformance kit for protocol clients (`dbbench client-test`): it drives a
// client through every message of docs/protocol.md at a small size with the exec adapter's own driver,
// checks every answer exactly against the dataset, and reports one line per check.
package clienttest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec"
	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/exitcode"
	"github.com/dbbench/dbbench/report/render"
	"github.com/dbbench/dbbench/workloads"
)

// Options says which client to check and how.
type Options struct {
	Command []string
	Dir     string
	Size    int            // persons in the dataset
	Client  map[string]any // passed as open.options
	// DSN, when set, is a PostgreSQL server on which a schema is created for the client (and dropped).
	DSN     string
	Timeout time.Duration // per request (hello included)
	TempDir string        // where the dataset and the client's temp_dir go
	Out     io.Writer     // one line per check
	Logf    func(format string, args ...any)
}

// Result counts the checks.
type Result struct {
	Passed, Failed int
	Failures       []string // "name: reason"
	// Undecided counts the checks whose evidence could not decide within their budget (a loaded
	// machine hides a client's work behind the protocol's cost): not a pass.
	Undecided int
}

// undecidedError is a check that saw too little to decide: it neither passes nor fails.
type undecidedError struct{ why string }

func (e *undecidedError) Error() string { return e.why }

// ErrStart is returned (wrapped) when the client could not be started at all.
var ErrStart = errors.New("the client could not be started")

// checker runs the checks and prints their lines.
type checker struct {
	opts Options
	res  Result
	ds   *dataset.Persons
}

// Lines are at most render.DefaultWidth columns: a long detail wraps onto lines indented under the
// check's name, and a detail of several lines (open's info) puts each on its own indented line.
const (
	indent     = "     "   // under the check's name
	itemIndent = "       " // a detail line of its own
)

func (k *checker) line(verdict, name, detail string) {
	head, rest, more := strings.Cut(detail, "\n")
	s := verdict + name
	if head != "" {
		s += ": " + head
	}
	fmt.Fprintln(k.opts.Out, render.Wrap(s, render.DefaultWidth, indent))
	if !more {
		return
	}
	for _, l := range strings.Split(rest, "\n") {
		fmt.Fprintln(k.opts.Out, render.Wrap(itemIndent+l, render.DefaultWidth, itemIndent+"  "))
	}
}

func (k *checker) pass(name, detail string) {
	k.res.Passed++
	k.line("ok   ", name, detail)
}

func (k *checker) fail(name string, err error) {
	k.res.Failed++
	k.res.Failures = append(k.res.Failures, name+": "+err.Error())
	k.line("FAIL ", name, exitcode.OneLine(err.Error()))
}

func (k *checker) skip(name, why string) { k.line("skip ", name, why) }

func (k *checker) undecided(name, why string) {
	k.res.Undecided++
	k.line("INCONCLUSIVE ", name, why)
}

// check runs one check on the client, unless an earlier check already ended it.
func (k *checker) check(c *exec.Client, name string, f func() (string, error)) bool {
	if c.Err() != nil {
		k.fail(name, fmt.Errorf("not run: the client was ended by an earlier check"))
		return false
	}
	detail, err := f()
	if u := (*undecidedError)(nil); errors.As(err, &u) {
		k.undecided(name, u.why)
		return false
	}
	if err != nil {
		k.fail(name, err)
		return false
	}
	k.pass(name, detail)
	return true
}

func (k *checker) start() (*exec.Client, error) {
	c, err := exec.Start(exec.Config{
		Command: k.opts.Command, Dir: k.opts.Dir, Timeout: k.opts.Timeout, StartupTimeout: k.opts.Timeout, Logf: k.opts.Logf,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	return c, nil
}

// Run checks the client. It returns an error wrapping ErrStart when the client cannot be started;
// every other problem is a failed check in the Result.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Size <= 0 {
		opts.Size = 1000
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	ds, err := dataset.GenerateSalted(opts.Size, 1, dataset.NewSalt())
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(opts.TempDir, "dbbench-client-test-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "persons.bin")
	if err := ds.WriteFile(file); err != nil {
		return nil, err
	}
	store := filepath.Join(dir, "store")
	if err := os.Mkdir(store, 0o755); err != nil {
		return nil, err
	}
	k := &checker{opts: opts, ds: ds}
	if err := k.session(ctx, file, store); err != nil {
		return nil, err
	}
	if err := k.endOfInput(ctx); err != nil {
		return nil, err
	}
	if k.res.Undecided > 0 {
		fmt.Fprintf(opts.Out, "%d passed, %d failed, %d inconclusive\n", k.res.Passed, k.res.Failed, k.res.Undecided)
	} else {
		fmt.Fprintf(opts.Out, "%d passed, %d failed\n", k.res.Passed, k.res.Failed)
	}
	return &k.res, nil
}

// clientSession is one client process through a whole session, hello to close.
type clientSession struct {
	*checker
	ctx    context.Context
	c      *exec.Client
	hello  *protocol.HelloReply
	opened *protocol.Opened
}

// session is a whole session, hello to close, with every request of the protocol.
func (k *checker) session(ctx context.Context, file, store string) error {
	c, err := k.start()
	if err != nil {
		return err
	}
	defer c.Kill()
	s := &clientSession{checker: k, ctx: ctx, c: c}
	if !s.sayHello() {
		return nil
	}
	dropSchema, err := s.open(file, store)
	if err != nil {
		return err
	}
	defer dropSchema()
	s.load()
	s.ping()
	s.verification()
	s.builtins()
	s.plausibleTimes()
	s.adapterWorkloads()
	s.records(filepath.Dir(file))
	s.errorReplies()
	s.close()
	return nil
}

// sayHello checks the hello exchange; false: the session cannot go on.
func (s *clientSession) sayHello() bool {
	return s.check(s.c, "hello", func() (string, error) {
		hello, err := s.c.Hello(s.ctx, protocol.Version, exec.DBBenchVersion())
		if errors.As(err, new(*exec.ReplyError)) {
			return "", fmt.Errorf("the client does not speak protocol %d (%v); client-test requires it (dbbench run still accepts version 1, with weaker verification)", protocol.Version, err)
		}
		if err != nil {
			return "", err
		}
		s.hello = hello
		return fmt.Sprintf("protocol %d, %s %s (%s, %s), %s %s; workloads: %s; options: %s; capabilities: %s", hello.Protocol, hello.Client, hello.ClientVersion,
			hello.Language, hello.Runtime, hello.Library, hello.LibraryVersion, list(hello.Workloads), list(hello.Options), list(hello.Capabilities)), nil
	})
}

// open checks open, on a schema of its own when a PostgreSQL server is given; dropSchema drops it.
func (s *clientSession) open(file, store string) (dropSchema func(), err error) {
	dropSchema = func() {}
	req := protocol.Open{Options: s.opts.Client, Size: s.ds.Len(), Seed: 1, TempDir: store, Dataset: file}
	if s.opts.DSN != "" {
		pg, drop, err := exec.PostgresSchema(s.ctx, s.opts.DSN)
		if err != nil {
			return nil, err
		}
		dropSchema = func() { drop() }
		req.Postgres = pg
	}
	s.check(s.c, "open", func() (string, error) {
		opened, err := s.c.Open(s.ctx, req)
		if err != nil {
			return "", err
		}
		s.opened = opened
		return fmt.Sprintf("scans_in_key_order %v%s", opened.ScansInKeyOrder, infoLines(opened.Info)), nil
	})
	return dropSchema, nil
}

func (s *clientSession) load() {
	n := s.ds.Len()
	s.check(s.c, "load", func() (string, error) {
		start := time.Now()
		rows, err := s.c.Load(s.ctx)
		if err != nil {
			return "", err
		}
		if rows != int64(n) {
			return "", fmt.Errorf("stored %d persons, the dataset has %d", rows, n)
		}
		return fmt.Sprintf("%d persons in %s", n, render.Duration(time.Since(start))), nil
	})
}

func (s *clientSession) ping() {
	s.check(s.c, "ping", func() (string, error) {
		var d []time.Duration
		for i := 0; i < 200; i++ {
			rtt, err := s.c.Ping(s.ctx)
			if err != nil {
				return "", err
			}
			d = append(d, rtt)
		}
		slices.Sort(d)
		// The protocol's own cost, for the plausibility of the times that follow.
		if err := s.c.Calibrate(s.ctx); err != nil {
			return "", err
		}
		return fmt.Sprintf("200 round trips, p50 %s", render.Duration(d[len(d)/2])), nil
	})
}

// verification checks the loaded store by a path the client does not control: dbbench reads it
// back itself (capability store), or puts the challenge to it (kind other). A client that offers
// neither fails: its answers could come from anywhere.
func (s *clientSession) verification() {
	s.check(s.c, "loaded store verified by dbbench", func() (string, error) {
		if err := s.c.VerifyLoaded(s.ctx, s.ds, s.opened != nil && s.opened.ScansInKeyOrder); err != nil {
			return "", err
		}
		v := s.c.Verification()
		if !strings.HasPrefix(v, "read back by dbbench") && v != "challenge" {
			return "", fmt.Errorf("the client offers neither a store dbbench can read (capability store) nor the challenge: %s", v)
		}
		return v + fmt.Sprintf(" (dataset salt %016x)", s.ds.Salt()), nil
	})
}

// plausibleTimes repeats scans and lookups, so that a client whose times are far shorter than the
// work dbbench sees it do is refused (it takes a few replies of a kind; docs/protocol.md). Only a
// reply whose work stands out from the protocol's cost can be judged, and on a loaded machine that
// cost grows: so the lookups grow (doubling their keys) until enough replies were judged, within a
// budget; a check that judged too few says so (inconclusive, exit 4), never "ok".
func (s *clientSession) plausibleTimes() {
	ds, n := s.ds, s.ds.Len()
	s.check(s.c, "plausible times", func() (string, error) {
		judged0, replies0 := s.c.Judged()
		keys := min(1000, n)
		deadline := time.Now().Add(plausibleBudget)
		var judged, replies int
		for round := 0; ; round++ {
			if slices.Contains(s.hello.Workloads, workloads.Scan) {
				if _, _, err := s.c.Scan(s.ctx, n); err != nil {
					return "", err
				}
			}
			if slices.Contains(s.hello.Workloads, workloads.Lookup) {
				idx := ds.Sample(keys, int64(round))
				if _, err := s.c.Lookup(s.ctx, idx, make([]time.Duration, len(idx))); err != nil {
					return "", err
				}
			}
			j, r := s.c.Judged()
			judged, replies = j-judged0, r-replies0
			if judged >= plausibleJudged || replies == 0 {
				break
			}
			if time.Now().After(deadline) {
				return "", &undecidedError{fmt.Sprintf("%d of %d replies (lookups of up to %d keys) showed enough work beyond the protocol's cost (%s) to judge their times, %d wanted within %s: run it on a quieter machine",
					judged, replies, keys, render.Duration(s.c.ProtocolCost()), plausibleJudged, plausibleBudget)}
			}
			keys = min(2*keys, maxPlausibleKeys)
		}
		if replies == 0 {
			return "", &undecidedError{"the client declares neither scan nor lookup: no time to judge"}
		}
		return fmt.Sprintf("%d of %d more replies judged (lookups of up to %d keys): each time positive, within its round trip and not far below the work dbbench saw", judged, replies, keys), nil
	})
}

// How long plausibleTimes may grow its requests, how many judged replies it wants (enough for a
// client that under-reports to be refused: exec refuses one whose judged replies are mostly
// short, from three on), and how large a lookup request may grow.
const (
	plausibleBudget  = 20 * time.Second
	plausibleJudged  = 5
	maxPlausibleKeys = 1 << 16
)

// builtins checks each common workload the client declares, and says which it skips.
func (s *clientSession) builtins() {
	for _, w := range []struct {
		name  string
		check func()
	}{{workloads.Scan, s.scan}, {workloads.Lookup, s.lookup}, {workloads.Insert, s.insert}, {workloads.Concurrent, s.concurrent}} {
		if slices.Contains(s.hello.Workloads, w.name) {
			w.check()
		} else {
			s.skip(w.name, "not declared by the client")
		}
	}
}

// want checks a tally against the rows and checksum the dataset says it must have.
func want(what string, got adapters.Tally, rows int, sum uint64) error {
	if got.Rows != int64(rows) || got.Sum != sum {
		return fmt.Errorf("%s: %d rows, checksum %016x; want %d rows, checksum %016x", what, got.Rows, got.Sum, rows, sum)
	}
	return nil
}

func (s *clientSession) scan() {
	ds, n := s.ds, s.ds.Len()
	s.check(s.c, "scan all", func() (string, error) {
		t, d, err := s.c.Scan(s.ctx, n)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d rows in %s", n, render.Duration(d)), want("scan", t, n, ds.SumFirst(n))
	})
	part := min(10, n)
	s.check(s.c, "scan partial", func() (string, error) {
		t, _, err := s.c.Scan(s.ctx, part)
		if err != nil {
			return "", err
		}
		if s.opened != nil && s.opened.ScansInKeyOrder {
			return "the first persons in email order", want("scan", t, part, ds.SumSortedPrefix(part))
		}
		again, _, err := s.c.Scan(s.ctx, part)
		if err != nil {
			return "", err
		}
		if err := want("scan", t, part, again.Sum); err != nil {
			return "", fmt.Errorf("two scans of %d rows differ: %v", part, err)
		}
		return "rows only (not in key order)", nil
	})
}

func (s *clientSession) lookup() {
	ds, n := s.ds, s.ds.Len()
	s.check(s.c, "lookup", func() (string, error) {
		keys := append([]int32{0, int32(n - 1)}, ds.Sample(min(100, n), 7)...)
		lat := make([]time.Duration, len(keys))
		t, err := s.c.Lookup(s.ctx, keys, lat)
		if err != nil {
			return "", err
		}
		slices.Sort(lat)
		return fmt.Sprintf("%d keys, p50 %s", len(keys), render.Duration(lat[len(lat)/2])), want("lookup", t, len(keys), ds.SumOf(keys))
	})
}

func (s *clientSession) insert() {
	rows := min(100, s.ds.Len())
	for _, name := range []string{"insert", "insert again (a fresh store each time)"} {
		s.check(s.c, name, func() (string, error) {
			t, d, err := s.c.Insert(s.ctx, rows)
			if err != nil {
				return "", err
			}
			how := "read back by the client"
			if s.c.Has(protocol.CapKeepStore) {
				how = "kept, read back by dbbench, dropped"
			}
			return fmt.Sprintf("%d persons in %s, %s", rows, render.Duration(d), how), want("insert read-back", t, rows, s.ds.SumFirst(rows))
		})
	}
}

func (s *clientSession) concurrent() {
	ds, n := s.ds, s.ds.Len()
	s.check(s.c, "concurrent", func() (string, error) {
		const readers = 4
		lat := make([]time.Duration, readers)
		ts, wall, err := s.c.Concurrent(s.ctx, readers, n, lat)
		if err != nil {
			return "", err
		}
		for i, t := range ts {
			if err := want(fmt.Sprintf("reader %d", i), t, n, ds.SumFirst(n)); err != nil {
				return "", err
			}
		}
		return fmt.Sprintf("%d readers of %d rows, wall %s", readers, n, render.Duration(wall)), nil
	})
}

// adapterWorkloads runs each workload of the client's own a few times.
func (s *clientSession) adapterWorkloads() {
	for _, w := range s.hello.Workloads {
		if slices.Contains(workloads.Builtins, w) {
			continue
		}
		s.check(s.c, "run "+w, func() (string, error) {
			const ops = 10
			lat := make([]time.Duration, ops)
			t, err := s.c.Run(s.ctx, w, nil, lat)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%d operations, %d rows, checksum %016x", ops, t.Rows, t.Sum), nil
		})
	}
}

// errorReplies checks that an unknown op and a malformed request get error replies, and that the
// client is still usable after each.
func (s *clientSession) errorReplies() {
	usable := func() error {
		if _, err := s.c.Ping(s.ctx); err != nil {
			return fmt.Errorf("not usable after the error reply: %v", err)
		}
		return nil
	}
	s.check(s.c, "unknown op", func() (string, error) {
		err := s.c.Call(s.ctx, "frobnicate", nil, &struct{}{})
		var re *exec.ReplyError
		if !errors.As(err, &re) {
			return "", fmt.Errorf("want an error reply, got %s", gotReply(err))
		}
		return fmt.Sprintf("error reply %q", re.Msg), usable()
	})
	s.check(s.c, "malformed request", func() (string, error) {
		err := s.c.Raw(s.ctx, []byte(`{"id": 1, "op": "scan", "rows": `), 0, &struct{}{})
		var re *exec.ReplyError
		if !errors.As(err, &re) {
			return "", fmt.Errorf(`want {"id": 0, "error": ...}, got %s`, gotReply(err))
		}
		return fmt.Sprintf("error reply %q", re.Msg), usable()
	})
}

// close checks that the client closes and its process group is gone.
func (s *clientSession) close() {
	s.check(s.c, "close", func() (string, error) {
		pgid := s.c.PGID()
		if err := s.c.Close(s.ctx); err != nil {
			return "", err
		}
		if exec.GroupAlive(pgid) {
			return "", fmt.Errorf("its process group is still alive")
		}
		return "exited 0 at the end of its input", nil
	})
}

// endOfInput checks, in a second process, that an unsupported protocol version is refused with an
// error reply and that the client exits when its input ends without a close.
func (k *checker) endOfInput(ctx context.Context) error {
	c, err := k.start()
	if err != nil {
		return err
	}
	defer c.Kill()
	k.check(c, "hello with protocol 99", func() (string, error) {
		_, err := c.Hello(ctx, 99, exec.DBBenchVersion())
		var re *exec.ReplyError
		if !errors.As(err, &re) {
			return "", fmt.Errorf("want an error reply refusing the version, got %s", gotReply(err))
		}
		return fmt.Sprintf("refused: %q", re.Msg), nil
	})
	k.check(c, "end of input", func() (string, error) {
		if _, err := c.Hello(ctx, protocol.Version, exec.DBBenchVersion()); err != nil {
			return "", err
		}
		pgid := c.PGID()
		if !c.EndInput() {
			return "", fmt.Errorf("did not exit within 5s after its stdin closed (killed)")
		}
		if exec.GroupAlive(pgid) {
			return "", fmt.Errorf("its process group is still alive")
		}
		return "exited within 5s", nil
	})
	return nil
}

// gotReply says what came instead of an error reply: a normal reply (err is nil) or the error.
func gotReply(err error) string {
	if err == nil {
		return "a normal reply"
	}
	return err.Error()
}

// list names what a client declares: "scan, lookup" ("none" for nothing).
func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// infoLines is a client's info, one "key: value" line each, in key order, each line starting with
// "\n"; "" when it is empty.
func infoLines(info map[string]any) string {
	if len(info) == 0 {
		return ", info empty"
	}
	var b strings.Builder
	b.WriteString(", info:")
	for _, key := range slices.Sorted(maps.Keys(info)) {
		b.WriteString("\n" + key + ": " + exitcode.OneLine(render.Value(info[key])))
	}
	return b.String()
}
