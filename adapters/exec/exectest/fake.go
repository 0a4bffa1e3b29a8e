// Package exectest is a fake protocol client for tests: a test binary re-executes itself as the
// client, with FakeEnv naming a behaviour, correct or broken in one particular way.
//
//	func TestMain(m *testing.M) { exectest.Main(); os.Exit(m.Run()) }
//
// Every fake first starts a child (sleep 600) in its process group, so that tests can check that
// dbbench ends the whole group. The correct fake holds the person file in memory and answers from it
// (a store like the memory adapter, kind other: it takes the challenge), spending a little timed work
// per row so that its times are those of work done; it is a fake of the protocol, not a database.
// The lying behaviours (Formula, OneNs, Zero, ClaimInserts, NoChallenge, Short) lie all session long.
package exectest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/dataset"
)

// FakeEnv names the environment variable that selects the behaviour.
const FakeEnv = "DBBENCH_EXECTEST_FAKE"

// Behaviours of the fake client. OK is correct; each other one breaks one rule at the op named in
// BreakAt (default "scan").
const (
	OK          = "ok"
	ExitStart   = "exit-start"   // exits before reading anything
	ExitMid     = "exit-mid"     // exits on receiving the request
	ExitAfter   = "exit-after"   // replies, then exits
	NonJSON     = "non-json"     // prints a log line on stdout
	WrongID     = "wrong-id"     // replies to another id
	Missing     = "missing"      // leaves out the checksum (the last reader's, of concurrent)
	Version     = "version"      // speaks protocol 3
	V1          = "v1"           // speaks protocol 1 only (correct otherwise)
	Checksum    = "checksum"     // a wrong checksum
	Hang        = "hang"         // never replies
	IgnoreEOF   = "ignore-eof"   // does not exit when its input ends
	Huge        = "huge"         // a reply longer than 64 MiB
	Slow        = "slow-elapsed" // reports more time than the round trip
	ErrorReply  = "error"        // replies {"error": ...}
	Negative    = "negative"     // a negative time
	WrongCount  = "wrong-count"  // one latency or reader too few
	NoVersionOK = "no-retry"     // answers an unsupported hello with a reply instead of an error

	// Clients that lie: each must fail dbbench run and dbbench client-test.
	Formula      = "formula"       // no store: answers from the generator's formula over the seed
	OneNs        = "one-ns"        // does the work, reports 1 ns for everything
	Zero         = "zero"          // does the work, reports 0 ns for everything
	ClaimInserts = "claim-inserts" // keep_store: claims its inserts and keeps an empty store
	NoChallenge  = "no-challenge"  // acknowledges the challenge, stores nothing of it
	Short        = "short"         // scans return one row too few (a short page)

	// Clients whose phases (phases_ns) break a rule; the correct fake, asked for profile in open,
	// splits each timed reply's time into "work" and "decode", in that order.
	PhasesOver     = "phases-over"     // phases summing to more than the reply's own time
	PhasesUnasked  = "phases-unasked"  // phases on a reply although open did not ask for them
	PhasesBadName  = "phases-bad-name" // a phase name that cannot name a figure
	PhasesNegative = "phases-negative" // a phase of negative time
)

// rowWork is the timed work the fake spends per row or operation, standing in for a store's; the
// fakes that lie about their times spend more, so that the work dbbench sees them do is plain.
const (
	rowWork   = time.Microsecond
	lyingWork = 200 * time.Microsecond
)

// PGIDLine starts the first line a fake prints on stderr, followed by its process group id, so that
// a test can check the group is gone even when it never got hold of the client.
const PGIDLine = "fake client, process group "

// BreakAtEnv names the op at which a broken fake misbehaves (default scan).
const BreakAtEnv = "DBBENCH_EXECTEST_AT"

// Command is the argv that starts the fake: this test binary, running no tests.
func Command() []string { return []string{os.Args[0], "-test.run=^$"} }

// Env returns the environment entries selecting a behaviour (at the given op, "" for scan).
func Env(behaviour, at string) map[string]any {
	m := map[string]any{FakeEnv: behaviour}
	if at != "" {
		m[BreakAtEnv] = at
	}
	return m
}

// A fake keeps its work on the main thread, as a single-threaded client does (dbbench reads that
// thread's wait for a CPU; work measures that thread's CPU time); an init function runs there.
func init() {
	if _, ok := os.LookupEnv(FakeEnv); ok {
		runtime.LockOSThread()
	}
}

// Main runs the fake client and exits when FakeEnv is set; otherwise it returns.
func Main() {
	b, ok := os.LookupEnv(FakeEnv)
	if !ok {
		return
	}
	at := os.Getenv(BreakAtEnv)
	if at == "" {
		at = "scan"
	}
	// A child in our process group, holding our stdout: dbbench must end it too, and must notice our
	// exit although the pipe stays open.
	child := osexec.Command("sleep", "600")
	child.Stdout = os.Stdout
	child.Start()
	fmt.Fprintf(os.Stderr, "%s%d\n", PGIDLine, syscall.Getpgrp())
	os.Exit(run(b, at))
}

// request is what the fake reads of a request. It decodes requests, and writes its replies as maps,
// on its own rather than through package protocol's types: the fake is the other side the exec
// adapter is tested against, and must be free to break any field.
type request struct {
	ID       int64             `json:"id"`
	Op       string            `json:"op"`
	Protocol int               `json:"protocol"`
	Dataset  string            `json:"dataset"`
	Size     int               `json:"size"`
	Seed     int64             `json:"seed"`
	TempDir  string            `json:"temp_dir"`
	Keep     bool              `json:"keep"`
	Emails   []string          `json:"emails"`
	Persons  []protocol.Person `json:"persons"`
	Remove   bool              `json:"remove"`
	Rows     int               `json:"rows"`
	Keys     []int32           `json:"keys"`
	Readers  int               `json:"readers"`
	Ops      int               `json:"ops"`
	Workload string            `json:"workload"`
	Options  json.RawMessage   `json:"options"`
	Profile  bool              `json:"profile"`
	// load_records and do (RecordsEnv)
	File        string   `json:"file"`
	Count       int      `json:"count"`
	FieldCount  int      `json:"fieldcount"`
	FieldLength int      `json:"fieldlength"`
	Kind        string   `json:"kind"`
	Key         string   `json:"key"`
	Field       int      `json:"field"`
	Value       string   `json:"value"`
	Fields      []string `json:"fields"`
}

// fake is one fake client's session.
type fake struct {
	behaviour, at string
	out           *bufio.Writer
	ds            *dataset.Persons // the person file open names
	version       int              // what hello agreed
	extra         []protocol.Person
	inserts       int
	tempDir       string
	challenge     int // requests of the challenge still to come (0: none under way)
	seed          int64
	rec           *recordStore // the records load_records stored (records.go)
	profile       bool         // open asked for phases
}

// trackChallenge follows the challenge: its insert, a lookup, a scan, its removal and a scan.
func (f *fake) trackChallenge(r request) {
	switch {
	case r.Op == "challenge" && !r.Remove:
		f.challenge = 5
	case f.challenge > 0:
		f.challenge--
	}
}

func run(b, at string) int {
	if b == ExitStart {
		fmt.Fprintln(os.Stderr, "fake: exiting at start-up")
		return 1
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, protocol.MaxLine)
	f := &fake{behaviour: b, at: at, out: bufio.NewWriter(os.Stdout)}
	for in.Scan() {
		if code, goOn := f.serve(in.Bytes()); !goOn {
			return code
		}
	}
	if b == IgnoreEOF {
		time.Sleep(time.Hour)
	}
	return 0
}

// serve answers one request line, correctly or the way the behaviour breaks it; goOn is false when
// the fake exits here, with code.
func (f *fake) serve(line []byte) (code int, goOn bool) {
	var r request
	if err := json.Unmarshal(line, &r); err != nil {
		f.reply(map[string]any{"id": 0, "error": "not a JSON request"})
		return 0, true
	}
	// The challenge (after the load) is not where a broken fake breaks: its tests are about the
	// requests it names.
	f.trackChallenge(r)
	broken := f.behaviour != OK && r.Op == f.at && f.challenge == 0
	if broken {
		switch f.behaviour {
		case ExitMid:
			return 3, false
		case Hang:
			time.Sleep(time.Hour)
		case NonJSON:
			fmt.Fprintln(f.out, "loading the store...")
			f.out.Flush()
			return 0, true
		case ErrorReply:
			f.reply(map[string]any{"id": r.ID, "error": "the fake fails " + r.Op})
			return 0, true
		}
	}
	m, err := f.answer(r)
	if err != nil {
		f.reply(map[string]any{"id": r.ID, "error": err.Error()})
		return 0, true
	}
	if own, timed := ownNs(r.Op, m); timed && (f.profile || broken && f.behaviour == PhasesUnasked) {
		work := own * 3 / 4
		m["phases_ns"] = json.RawMessage(fmt.Sprintf(`{"work":%d,"decode":%d}`, work, own-work))
	}
	if broken {
		breakReply(f.behaviour, r, m)
	}
	f.reply(m)
	return 0, !broken || f.behaviour != ExitAfter
}

func (f *fake) reply(m map[string]any) {
	j, _ := json.Marshal(m)
	f.out.Write(append(j, '\n'))
	f.out.Flush()
}

// answer is the reply to r: correct, or the lie of a lying behaviour.
func (f *fake) answer(r request) (map[string]any, error) {
	start := time.Now()
	m := map[string]any{"id": r.ID}
	switch r.Op {
	case "hello":
		return m, f.hello(r, m)
	case "open":
		return m, f.open(r, m)
	case "load":
		m["rows"] = f.ds.Len()
		f.elapsed(m, "elapsed_ns", start, f.ds.Len())
		if f.version >= 2 {
			m["store"] = map[string]any{"kind": "other"}
		}
	case "ping", "close":
	case "scan":
		f.scan(m, r.Rows)
		f.elapsed(m, "elapsed_ns", start, r.Rows)
	case "insert":
		return m, f.insert(r, m, start)
	case "drop":
	case "challenge":
		if r.Remove {
			f.extra = nil
		} else if f.behaviour != NoChallenge {
			f.extra = append(f.extra, r.Persons...)
		}
	case "lookup":
		f.lookup(r, m)
		m["latencies_ns"] = f.perOp(start, len(r.Keys)+len(r.Emails))
	case "run":
		keys := make([]int32, r.Ops)
		for i := range keys {
			keys[i] = int32(i % f.ds.Len())
		}
		tally(m, r.Ops, f.ds.SumOf(keys))
		m["latencies_ns"] = f.perOp(start, r.Ops)
	case "concurrent":
		f.concurrent(r, m, start)
	case "load_records":
		return m, f.loadRecords(r, m)
	case "do":
		return m, f.do(r, m)
	default:
		return nil, fmt.Errorf("unknown op %s", r.Op)
	}
	return m, nil
}

// open reads the person file, or, lying (Formula), computes the dataset from the seed.
func (f *fake) open(r request, m map[string]any) error {
	var err error
	if f.behaviour == Formula {
		f.ds, err = dataset.Generate(r.Size, r.Seed)
	} else {
		f.ds, err = dataset.ReadFile(r.Dataset)
	}
	if err != nil {
		return err
	}
	f.tempDir, f.seed, f.profile = r.TempDir, r.Seed, r.Profile
	m["info"] = map[string]any{"options": r.Options, "profile": r.Profile}
	m["scans_in_key_order"] = true
	return nil
}

// scan answers a scan of rows: the first persons in email order, then the challenge's.
func (f *fake) scan(m map[string]any, rows int) {
	n := f.ds.Len()
	if f.behaviour == Short && rows > 1 {
		rows--
	}
	if rows <= n {
		tally(m, rows, f.ds.SumSortedPrefix(rows))
		return
	}
	sum, got := f.ds.SumFirst(n), n
	for _, p := range f.extra {
		if got < rows {
			sum += dataset.RowSum(p.Email, p.Name, p.Age)
			got++
		}
	}
	tally(m, got, sum)
}

// lookup answers a lookup by dataset index, or by email (the challenge's).
func (f *fake) lookup(r request, m map[string]any) {
	if r.Emails == nil {
		tally(m, len(r.Keys), f.ds.SumOf(r.Keys))
		return
	}
	var rows int
	var sum uint64
	for _, e := range r.Emails {
		for _, p := range f.extra {
			if p.Email == e {
				rows++
				sum += dataset.RowSum(p.Email, p.Name, p.Age)
			}
		}
	}
	tally(m, rows, sum)
}

// insert answers an insert: the first rows persons' sums, or with keep (ClaimInserts) a store it
// claims to have written and did not.
func (f *fake) insert(r request, m map[string]any, start time.Time) error {
	if r.Keep {
		if f.behaviour != ClaimInserts {
			return fmt.Errorf("insert: keep is not offered")
		}
		f.inserts++
		dir := filepath.Join(f.tempDir, fmt.Sprintf("insert-%d", f.inserts))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		m["store"] = map[string]any{"kind": "lmdb", "path": dir}
	}
	tally(m, r.Rows, f.ds.SumFirst(r.Rows))
	f.elapsed(m, "elapsed_ns", start, r.Rows)
	return nil
}

func (f *fake) concurrent(r request, m map[string]any, start time.Time) {
	var rs []map[string]any
	for i := 0; i < r.Readers; i++ {
		x := map[string]any{}
		tally(x, r.Rows, f.ds.SumSortedPrefix(r.Rows))
		f.elapsed(x, "elapsed_ns", start, r.Rows)
		rs = append(rs, x)
	}
	m["readers"] = rs
	f.elapsed(m, "wall_ns", start, 0)
}

// elapsed spends the timed work of rows rows and reports the time since start (a lying behaviour
// reports its lie instead).
func (f *fake) elapsed(m map[string]any, key string, start time.Time, rows int) {
	f.work(start, rows)
	m[key] = f.report(time.Since(start).Nanoseconds())
}

// perOp spends n operations' timed work and returns their latencies.
func (f *fake) perOp(start time.Time, n int) []int64 {
	lat := make([]int64, n)
	for i := range lat {
		t0 := time.Now()
		f.work(t0, 1)
		lat[i] = f.report(time.Since(t0).Nanoseconds())
	}
	return lat
}

func (f *fake) report(ns int64) int64 {
	switch f.behaviour {
	case OneNs:
		return 1
	case Zero:
		return 0
	}
	return ns
}

// work spins until rows rows' worth of work has been done since start: CPU time of this thread (the
// main one, Main locks it), as a store's work is, so that on a loaded machine it takes longer rather
// than passing while the thread waits for a CPU. Where the thread's clock cannot be read, wall time.
func (f *fake) work(start time.Time, rows int) {
	per := rowWork
	if f.behaviour == OneNs || f.behaviour == Zero {
		per = lyingWork
	}
	f.workPer(start, rows, per)
}

// workPer is work at per a row.
func (f *fake) workPer(start time.Time, rows int, per time.Duration) {
	want := time.Duration(rows)*per - time.Since(start) // what start's caller spent counts
	cpu0, ok := threadCPU()
	if !ok {
		for time.Since(start) < time.Duration(rows)*per {
		}
		return
	}
	for now, _ := threadCPU(); now-cpu0 < want; now, _ = threadCPU() {
	}
}

// threadCPU is the calling thread's CPU time.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// hello fills the handshake: versions 1 and 2 (V1: only 1), unless the behaviour answers any.
func (f *fake) hello(r request, m map[string]any) error {
	top := 2
	if f.behaviour == V1 {
		top = 1
	}
	if (r.Protocol < 1 || r.Protocol > top) && f.behaviour != NoVersionOK {
		return fmt.Errorf("protocol %d is not spoken here", r.Protocol)
	}
	f.version = min(max(r.Protocol, 1), top)
	if f.behaviour == NoVersionOK {
		f.version = r.Protocol // whatever it is asked for
	}
	m["protocol"] = f.version
	for k, v := range map[string]string{"client": "fake", "client_version": "1", "language": "Go",
		"runtime": "go", "library": "dataset", "library_version": "1"} {
		m[k] = v
	}
	m["workloads"] = []string{"scan", "lookup", "insert", "concurrent", "echo"}
	m["options"] = []string{"flavour", "password"}
	if f.version >= 2 {
		caps := []string{"store", "challenge", "phases"}
		if f.behaviour == ClaimInserts {
			caps = append(caps, "keep_store")
		}
		if servesRecords() {
			caps = append(caps, "ops")
		}
		m["capabilities"] = caps
	}
	return nil
}

func tally(m map[string]any, rows int, sum uint64) {
	m["rows"], m["checksum"] = rows, protocol.Checksum(sum)
}

// breakReply spoils the correct reply m to r the way behaviour b says.
func breakReply(b string, r request, m map[string]any) {
	switch b {
	case WrongID:
		m["id"] = r.ID + 1
	case Huge:
		m["pad"] = strings.Repeat("x", 65<<20)
	case Version:
		if r.Op == "hello" {
			m["protocol"] = 3
		}
	case Missing:
		delete(m, "checksum")
		delete(m, "scans_in_key_order")
		delete(m, "library")
		if r, ok := m["readers"].([]map[string]any); ok && len(r) > 0 {
			delete(r[len(r)-1], "checksum")
		}
	case Checksum:
		m["checksum"] = protocol.Checksum(12345)
	case Slow:
		for _, k := range []string{"elapsed_ns", "wall_ns"} {
			if _, ok := m[k]; ok {
				m[k] = int64(10 * time.Second)
			}
		}
		if l, ok := m["latencies_ns"].([]int64); ok && len(l) > 0 {
			l[0] = int64(10 * time.Second)
		}
	case Negative:
		for _, k := range []string{"elapsed_ns", "wall_ns"} {
			if _, ok := m[k]; ok {
				m[k] = -1
			}
		}
		if l, ok := m["latencies_ns"].([]int64); ok && len(l) > 0 {
			l[0] = -1
		}
	case PhasesOver:
		own, _ := ownNs(r.Op, m)
		m["phases_ns"] = json.RawMessage(fmt.Sprintf(`{"work":%d,"decode":%d}`, own, 1000))
	case PhasesBadName:
		m["phases_ns"] = json.RawMessage(`{"Work-Time":1}`)
	case PhasesNegative:
		m["phases_ns"] = json.RawMessage(`{"work":-1}`)
	case WrongCount:
		if l, ok := m["latencies_ns"].([]int64); ok && len(l) > 0 {
			m["latencies_ns"] = l[1:]
		}
		if r, ok := m["readers"].([]map[string]any); ok && len(r) > 0 {
			m["readers"] = r[1:]
		}
	}
}

// ownNs is a timed reply's own time, which its phases split: its elapsed time, the sum of its
// latencies or of its readers' times, or a do's ns.
func ownNs(op string, m map[string]any) (int64, bool) {
	switch op {
	case "scan", "insert":
		return asInt64(m["elapsed_ns"]), true
	case "lookup", "run":
		var sum int64
		for _, ns := range m["latencies_ns"].([]int64) {
			sum += ns
		}
		return sum, true
	case "concurrent":
		var sum int64
		for _, x := range m["readers"].([]map[string]any) {
			sum += asInt64(x["elapsed_ns"])
		}
		return sum, true
	case "do":
		return asInt64(m["ns"]), true
	}
	return 0, false
}

func asInt64(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	}
	return 0
}
