package exec

import (
	"context"
	mrand "math/rand/v2"
	"slices"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/randhex"
)

// What dbbench checks of a client beyond its answers (docs/protocol.md, "What dbbench checks"):
// times that can be true, and writes verified by a path the client does not control.

// Time plausibility. A self-timed figure must be at least a share of what dbbench saw the request
// take beyond the protocol's own cost: share * (round trip - ping p99). The shares leave room for what
// a correct client does outside its timed region (decoding the request, preparing the keys, encoding
// the reply, an insert's fresh store): measured on the reference clients (Go, Node, Python), whose
// lowest ratio was far above them, so that only a client that does work and reports (much) less is
// refused. The machine's load changes what the protocol costs: a reply that looks short is judged
// again against pings sent right after it (recheckPings), and the larger cost counts. Below
// max(minVisible, visibleCosts x cost) of round trip beyond the cost, a request's message size and the
// machine's scheduling explain the difference (measured: a 30-key lookup costs 100-200 us more than a
// ping on a busy 2-core machine; under a full `go test ./...` a 2 ms cold ping and a 4.5 ms round
// trip around 0.45 ms of work), so no lower bound is applied. A single short reply proves nothing (a
// client may be preempted after its clock stops), so a target is refused once at least shortAfter
// replies of one kind, and more than half of them, were short.
const (
	shareWhole  = 0.25 // scan and per-operation replies (the sum of latencies)
	shareInsert = 0.05 // insert: creating the fresh store is outside the timed region
	// lookup: decoding the request's keys and encoding each latency are outside the timed region,
	// and for a fast store they cost more per key than the lookup (measured: the Haskell client,
	// aeson around 160 ns unsafe-FFI lookups, reports 11-15% of the work dbbench sees in requests of
	// 8,000-16,000 keys). 2% still refuses a token time (1 ns a lookup is a millionth of it).
	shareLookup = 0.02
	// concurrent (wall): starting the readers' threads and their read transactions is outside the
	// timed region, and on a loaded machine starting threads takes milliseconds (measured: 165 us of
	// wall time in a 3.7 ms round trip, the Rust client's C readers under a full go test ./...).
	shareConcurrent = 0.01
	// freshStore is what making an insert's fresh store may cost outside the timed region, taken off
	// an insert's round trip with the protocol's cost (measured: 1-4 ms for an LMDB environment, the
	// Go client's and the Haskell client's, whose 500-row inserts report 50-70 us; a share alone
	// would refuse them whenever the machine is loaded).
	freshStore   = 5 * time.Millisecond
	minVisible   = time.Millisecond
	visibleCosts = 4
	recheckPings = 3
	shortAfter   = 3
)

// shortCount counts one kind of reply: all of them, those whose work stood out from the protocol's
// cost so that their time could be judged at all, and those judged implausibly short.
type shortCount struct {
	n, judged, short int
}

// Judged returns how many timed replies so far showed enough work beyond the protocol's cost for
// their times to be judged, and how many were timed replies at all. A check that judged none has
// seen nothing: on a loaded machine the protocol's cost can hide a small request's work entirely.
func (c *Client) Judged() (judged, replies int) {
	for _, sc := range c.short {
		judged += sc.judged
		replies += sc.n
	}
	return judged, replies
}

// ProtocolCost is the protocol's own cost a reply's round trip is judged against (0 before
// Calibrate).
func (c *Client) ProtocolCost() time.Duration { return c.pingP99 }

// Cold pings measure what the protocol costs a request that finds the client idle (woken from its
// read, as a workload's request does after the other targets' turns), which back-to-back pings do not.
const (
	coldPings    = 20
	coldPingWait = 2 * time.Millisecond
)

// Calibrate (once per client) takes the protocol's own cost from the pings measured so far (back
// to back) and from cold pings (each after a pause): the larger of their p99 and p90. From now on a
// reported time is also checked against the round trip less that cost.
func (c *Client) Calibrate(ctx context.Context) error {
	keep := len(c.RoundTrips[protocol.OpPing]) // the pings kept as the protocol's (warm-up ones left out)
	if keep == 0 || keep > len(c.pingWork) {
		return nil
	}
	hot := slices.Clone(c.pingWork[len(c.pingWork)-keep:])
	cold := make([]time.Duration, 0, coldPings)
	for range coldPings {
		time.Sleep(coldPingWait)
		rtt, err := c.Ping(ctx)
		if err != nil {
			return err
		}
		cold = append(cold, rtt-c.waited)
	}
	// the cold ones are not the protocol's usual round trip
	c.RoundTrips[protocol.OpPing] = c.RoundTrips[protocol.OpPing][:keep]
	c.pingWork = nil // from now on the cost is pingP99; later pings judge a reply, not the cost
	c.pingP99 = max(quantile(hot, 0.99), quantile(cold, 0.9))
	return nil
}

// plausible counts a reported time d against the round trip rtt around it, and refuses the client
// when the replies of this kind are mostly far shorter than the work dbbench saw them take.
func (c *Client) plausible(op, field string, d, rtt time.Duration) error {
	if c.pingP99 == 0 {
		return nil
	}
	share := shareWhole
	switch op {
	case protocol.OpInsert:
		share = shareInsert
	case protocol.OpLookup:
		share = shareLookup
	case protocol.OpConcurrent:
		share = shareConcurrent
	}
	sc := c.short[op]
	if sc == nil {
		sc = &shortCount{}
		c.short[op] = sc
	}
	sc.n++
	var fixed time.Duration // work outside the timed region that does not grow with the request
	if op == protocol.OpInsert {
		fixed = freshStore
	}
	cost := c.pingP99
	req := c.last // the request of this reply, before the recheck pings replace it
	rtt -= c.waited + fixed
	if !tooShort(d, rtt, cost, share) {
		sc.judge(rtt, cost)
		return nil
	}
	now, err := c.pingNow()
	if err != nil {
		return err
	}
	if cost = max(cost, now); !tooShort(d, rtt, cost, share) {
		sc.judge(rtt, cost)
		return nil
	}
	seen, err := c.again(req, share, cost)
	switch {
	case err != nil:
		return err
	case seen == repeatPlausible:
		sc.judged++
		return nil
	case seen == repeatHidden:
		return nil // the round trip was the machine's, not the work's: unjudged
	}
	sc.judged++
	sc.short++
	if sc.short < shortAfter || 2*sc.short <= sc.judged { // replies too small to judge are no evidence either way
		return nil
	}
	return c.fail("%s reply: %s %s is implausibly short: the round trip was %s and the protocol's own cost (pings) %s, so the work took about %s, and a client's time must be at least %.0f%% of it (%d of the %d %s replies so far whose work could be judged were this short)",
		op, field, d, rtt, cost, rtt-cost, share*100, sc.short, sc.judged, op)
}

// A read that still looks short after the recheck pings is asked again, up to askAgain times, and
// judged on each repeat's round trip less the time the client's main thread waited for a CPU during
// it (waited.go): a machine's load adds to a round trip without being the client's work, while a
// client that reports less than it works does so every time. Only reads are asked again: they
// change nothing. The repeats' round trips are not the workload's.
//
// A repeat whose work does not stand out from the protocol's cost shows that the first round trip's
// excess was not the work: the same request, the same work, took too little to judge. Beside one
// busy core, the wait that makes it is often dbbench's own, waking to read the reply (measured: an
// honest 0.3 ms scan of the Rust client's C loop with a 3.2 ms round trip, 0.4 ms of the client's
// CPU, no wait of its own, and 3.4 ms of run-queue wait summed over dbbench's threads; its repeats
// took 0.4-0.5 ms). Such a reply is let through unjudged, as one whose work was hidden from the start.
// A client that reports less than it works still shows its work on each repeat, and is judged there.
const askAgain = 2

// What the repeats of a short-looking read showed.
type repeatSeen int

const (
	repeatShort     repeatSeen = iota // every repeat's work was visible, and the time short of it
	repeatPlausible                   // a repeat's time was plausible against its visible work
	repeatHidden                      // no repeat was plausible, and one's work was too small to judge
)

// again sends a read request once more, up to askAgain times, and says what the repeats showed of the
// reply's time, each against its own round trip less the client's wait for a CPU.
func (c *Client) again(req protocol.Request, share float64, cost time.Duration) (repeatSeen, error) {
	if req == nil {
		return repeatShort, nil
	}
	op := req.Head().Op
	switch op {
	case protocol.OpScan, protocol.OpLookup, protocol.OpConcurrent:
	default:
		return repeatShort, nil
	}
	keep := len(c.RoundTrips[op])
	defer func() { c.RoundTrips[op] = c.RoundTrips[op][:keep] }()
	seen := repeatShort
	for range askAgain {
		d, rtt, err := c.readAgain(req)
		if err != nil {
			return repeatShort, err
		}
		switch judgeRepeat(d, rtt-c.waited, cost, share) {
		case repeatPlausible:
			return repeatPlausible, nil
		case repeatHidden:
			seen = repeatHidden
		}
	}
	return seen, nil
}

// judgeRepeat says what one repeat shows of a reported time d: hidden where its work does not stand
// out from the protocol's cost, plausible where d is at least share of it, else short.
func judgeRepeat(d, rtt, cost time.Duration, share float64) repeatSeen {
	work, visible := visibleWork(rtt, cost)
	switch {
	case !visible:
		return repeatHidden
	case d >= time.Duration(share*float64(work)):
		return repeatPlausible
	}
	return repeatShort
}

// readAgain sends a read request again and returns the time its reply reports (as the first reply's
// was read: elapsed, the sum of latencies, or the wall time) and its round trip.
func (c *Client) readAgain(req protocol.Request) (time.Duration, time.Duration, error) {
	ctx := context.Background()
	switch req.Head().Op {
	case protocol.OpLookup:
		var r protocol.LatenciesReply
		rtt, err := c.call(ctx, req, &r)
		var sum int64
		for _, ns := range r.LatenciesNs {
			sum += ns
		}
		return time.Duration(sum), rtt, err
	case protocol.OpConcurrent:
		var r protocol.ConcurrentReply
		rtt, err := c.call(ctx, req, &r)
		return time.Duration(r.WallNs), rtt, err
	}
	var r protocol.TimedReply
	rtt, err := c.call(ctx, req, &r)
	return time.Duration(r.ElapsedNs), rtt, err
}

// visibleWork is the work a round trip rtt shows beyond the protocol's cost, and whether it is
// large enough to tell a short time from the machine's scheduling.
func visibleWork(rtt, cost time.Duration) (time.Duration, bool) {
	work := rtt - cost
	return work, work >= max(minVisible, visibleCosts*cost)
}

// judge counts a reply found plausible as judged when its work stood out from the protocol's cost;
// one whose work did not was let through unjudged.
func (sc *shortCount) judge(rtt, cost time.Duration) {
	if _, ok := visibleWork(rtt, cost); ok {
		sc.judged++
	}
}

// tooShort says whether a reported time d is far below the work a round trip rtt shows beyond the
// protocol's cost, where that work is large enough to tell.
func tooShort(d, rtt, cost time.Duration, share float64) bool {
	work, ok := visibleWork(rtt, cost)
	return ok && d < time.Duration(share*float64(work))
}

// pingNow measures what the protocol costs right now: the slowest of a few pings, which are then
// left out of the protocol's reported round trips.
func (c *Client) pingNow() (time.Duration, error) {
	keep := len(c.RoundTrips[protocol.OpPing])
	defer func() { c.RoundTrips[protocol.OpPing] = c.RoundTrips[protocol.OpPing][:keep] }()
	var slowest time.Duration
	for range recheckPings {
		rtt, err := c.Ping(context.Background())
		if err != nil {
			return 0, err
		}
		slowest = max(slowest, rtt-c.waited)
	}
	return slowest, nil
}

// readerTally checks one reader of concurrent: a positive time within the round trip, a count and a
// checksum. The lower bound applies to the wall time (wallCoversReaders, plausible).
func (c *Client) readerTally(op string, r protocol.Timed, rtt time.Duration) (adapters.Tally, error) {
	switch {
	case r.ElapsedNs < 0:
		return adapters.Tally{}, c.fail("%s reply: negative elapsed_ns %d", op, r.ElapsedNs)
	case r.ElapsedNs == 0:
		return adapters.Tally{}, c.fail("%s reply: a reader's elapsed_ns is 0: no work takes no time", op)
	case time.Duration(r.ElapsedNs) > rtt:
		return adapters.Tally{}, c.fail("%s reply: elapsed_ns %s is longer than the %s round trip dbbench measured around it", op, time.Duration(r.ElapsedNs), rtt)
	}
	return c.tally(op, r.Rows, r.Checksum)
}

// wallSlack is what a wall time may fall short of its longest reader by: clocks read on different
// threads of one machine's monotonic clock.
const wallSlack = time.Microsecond

// wallCoversReaders refuses a wall time shorter than one of the readers it spans (the readers start
// after the release and end before the last end).
func (c *Client) wallCoversReaders(wallNs int64, readers []protocol.Timed) error {
	for i, r := range readers {
		if time.Duration(wallNs)+wallSlack < time.Duration(r.ElapsedNs) {
			return c.fail("concurrent reply: wall_ns %s is shorter than reader %d's elapsed_ns %s: the wall time spans every reader",
				time.Duration(wallNs), i+1, time.Duration(r.ElapsedNs))
		}
	}
	return nil
}

// insertKept sends insert with keep, reads the fresh store back itself, checks what the client said
// of it (if anything), and has the client drop it.
func (c *Client) insertKept(ctx context.Context, rows int) (adapters.Tally, time.Duration, error) {
	const op = protocol.OpInsert
	var r protocol.KeptReply
	rtt, err := c.call(ctx, &protocol.InsertRequest{Header: protocol.Header{Op: op}, Rows: rows, Keep: true}, &r)
	if err != nil {
		return adapters.Tally{}, 0, err
	}
	if err := c.checkTime(op, "elapsed_ns", r.ElapsedNs, rtt); err != nil {
		return adapters.Tally{}, 0, err
	}
	var t adapters.Tally
	if r.Store.Kind == protocol.StoreOther {
		// A store dbbench cannot open: the client's own read-back, as in version 1 (the challenge
		// checks its writes).
		if r.Rows == nil || r.Checksum == "" {
			return adapters.Tally{}, 0, c.fail("insert reply: a kept store of kind other needs the client's rows and checksum")
		}
		if t, err = c.tally(op, *r.Rows, r.Checksum); err != nil {
			return adapters.Tally{}, 0, err
		}
	} else if t, err = ReadBack(ctx, r.Store, c.pg); err != nil {
		return adapters.Tally{}, 0, c.fail("insert: dbbench cannot read back the fresh store the client kept (%s): %v", describe(r.Store), err)
	}
	if r.Rows != nil || r.Checksum != "" {
		claimed, err := c.tally(op, deref(r.Rows), r.Checksum)
		if err != nil {
			return adapters.Tally{}, 0, err
		}
		if claimed != t {
			return adapters.Tally{}, 0, c.fail("insert: the client says its fresh store holds %d rows, checksum %016x; dbbench read %d rows, checksum %016x from %s",
				claimed.Rows, claimed.Sum, t.Rows, t.Sum, describe(r.Store))
		}
	}
	if err := c.phases(op, r.PhasesNs, r.ElapsedNs, rtt); err != nil {
		return adapters.Tally{}, 0, err
	}
	var dr protocol.Reply
	if _, err := c.call(ctx, &protocol.Header{Op: protocol.OpDrop}, &dr); err != nil {
		return adapters.Tally{}, 0, err
	}
	d := time.Duration(r.ElapsedNs)
	c.cost(op, rtt, d)
	if r.Store.Kind != protocol.StoreOther {
		c.verified[op] = "read back by dbbench from " + storeNames[r.Store.Kind]
	}
	return t, d, nil
}

func deref(p *int64) int64 {
	if p == nil {
		return -1 // missing rows with a checksum: never equal to a read-back
	}
	return *p
}

// describe names a store for messages.
func describe(st protocol.Store) string {
	switch st.Kind {
	case protocol.StoreLMDB, protocol.StoreSQLite:
		return st.Kind + " " + st.Path
	case protocol.StorePostgres:
		return "postgres schema " + st.Schema + " table " + st.Table
	}
	return "kind " + st.Kind
}

// VerifyLoaded checks the loaded store by a path the client does not control, once after the load:
// dbbench reads it itself where the client described one it can open (capability store), or else
// puts the challenge to a client that offers it. A client that offers neither keeps the weaker
// verification Verification names.
func (c *Client) VerifyLoaded(ctx context.Context, ds *dataset.Persons, scansInKeyOrder bool) error {
	if c.loaded != nil && c.loaded.Kind != protocol.StoreOther {
		t, err := ReadBack(ctx, *c.loaded, c.pg)
		if err != nil {
			return c.fail("load: dbbench cannot read back the loaded store (%s): %v", describe(*c.loaded), err)
		}
		n := ds.Len()
		if want := (adapters.Tally{Rows: int64(n), Sum: ds.SumFirst(n)}); t != want {
			return c.fail("load: dbbench read %d rows, checksum %016x from the loaded store (%s); the dataset has %d rows, checksum %016x",
				t.Rows, t.Sum, describe(*c.loaded), want.Rows, want.Sum)
		}
		c.verified[protocol.OpLoad] = "read back by dbbench from " + storeNames[c.loaded.Kind]
		return nil
	}
	if c.Has(protocol.CapChallenge) {
		if err := c.Challenge(ctx, ds, challengeSize); err != nil {
			return err
		}
		c.verified[protocol.OpLoad] = "challenge"
	}
	return nil
}

// challengeSize is how many persons the challenge inserts.
const challengeSize = 16

// Challenge inserts k persons dbbench chooses now (random: no formula predicts them) into the
// loaded store, looks each up by email, scans the whole store, removes them, and scans again; each
// answer must be exactly what dbbench sent.
func (c *Client) Challenge(ctx context.Context, ds *dataset.Persons, k int) error {
	persons, sum := challengePersons(k)
	var r protocol.Reply
	if _, err := c.call(ctx, &protocol.ChallengeRequest{Header: protocol.Header{Op: protocol.OpChallenge}, Persons: persons}, &r); err != nil {
		return err
	}
	emails := make([]string, k)
	for i, p := range persons {
		emails[i] = p.Email
	}
	var lr protocol.LatenciesReply
	if _, err := c.call(ctx, &protocol.EmailLookupRequest{Header: protocol.Header{Op: protocol.OpLookup}, Emails: emails}, &lr); err != nil {
		return err
	}
	if len(lr.LatenciesNs) != k {
		return c.fail("%s reply: %d latencies for %d operations", protocol.OpLookup, len(lr.LatenciesNs), k)
	}
	got, err := c.tally(protocol.OpLookup, lr.Rows, lr.Checksum)
	if err != nil {
		return err
	}
	if want := (adapters.Tally{Rows: int64(k), Sum: sum}); got != want {
		return c.fail("challenge: looking up the %d challenge persons by email gave %d rows, checksum %016x; want %d rows, checksum %016x (the client does not hold what it was given)",
			k, got.Rows, got.Sum, want.Rows, want.Sum)
	}
	n := ds.Len()
	if err := c.challengeScan(ctx, n+k, adapters.Tally{Rows: int64(n + k), Sum: ds.SumFirst(n) + sum}, "with the challenge persons"); err != nil {
		return err
	}
	if _, err := c.call(ctx, &protocol.ChallengeRequest{Header: protocol.Header{Op: protocol.OpChallenge}, Remove: true}, &r); err != nil {
		return err
	}
	return c.challengeScan(ctx, n+k, adapters.Tally{Rows: int64(n), Sum: ds.SumFirst(n)}, "after removing the challenge persons")
}

// challengeScan scans rows rows (untimed as a workload) and checks the whole store's tally.
func (c *Client) challengeScan(ctx context.Context, rows int, want adapters.Tally, when string) error {
	var sr protocol.TimedReply
	if _, err := c.call(ctx, &protocol.RowsRequest{Header: protocol.Header{Op: protocol.OpScan}, Rows: rows}, &sr); err != nil {
		return err
	}
	got, err := c.tally(protocol.OpScan, sr.Rows, sr.Checksum)
	if err != nil {
		return err
	}
	if got != want {
		return c.fail("challenge: a scan of the whole store %s gave %d rows, checksum %016x; want %d rows, checksum %016x",
			when, got.Rows, got.Sum, want.Rows, want.Sum)
	}
	return nil
}

// challengePersons draws k persons no formula predicts: emails and names from crypto/rand, in a
// domain the dataset never uses, and their sum.
func challengePersons(k int) ([]protocol.Person, uint64) {
	out := make([]protocol.Person, k)
	var sum uint64
	for i := range out {
		h := randhex.String(12)
		p := protocol.Person{Email: "challenge." + h[:16] + "@challenge.invalid", Name: "Challenge " + h[16:], Age: 18 + mrand.IntN(82)}
		out[i] = p
		sum += dataset.RowSum(p.Email, p.Name, p.Age)
	}
	return out, sum
}

// Verification says how the client's writes were verified, for the report.
func (c *Client) Verification() string {
	if c.version < 2 {
		return "client's own read-back (protocol 1)"
	}
	load, insert := c.verified[protocol.OpLoad], c.verified[protocol.OpInsert]
	switch {
	case load == "challenge" || (load != "" && (insert == "" || insert == load) && c.Has(protocol.CapKeepStore)):
		return load
	case load != "" && insert != "":
		return load + " (load); " + insert + " (inserts)"
	case load != "":
		return load + " (load; inserts: the client's own read-back)"
	case insert != "":
		return insert + " (inserts; load: the client's own count)"
	}
	return "client's own read-back (protocol 2 without store, keep_store or challenge)"
}
