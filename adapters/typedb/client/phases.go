package client

import (
	"context"
	"io"
	"net/http/httptrace"
	"sync"

	"github.com/dbbench/dbbench/adapters/phase"
)

// A request made with a context from WithPhases is split into the shared phases (dbbench run
// --profile): send (encoding and writing the request, until the transport has written it), wait
// (until the first byte of the answer), drain (the answer's header, then every read of its body)
// and decode (the rest of the time until the caller is done with the answer: JSON decoding and the
// row handler). Each boundary is one clock read, so the four phases tile the request. A context
// without a recorder costs one Value look-up per request and installs no trace.

type phasesKey struct{}

// WithPhases returns ctx carrying r: the requests made with it mark their phases on r. A nil r
// gives back ctx unchanged.
func WithPhases(ctx context.Context, r *phase.Recorder) context.Context {
	if r == nil {
		return ctx
	}
	return context.WithValue(ctx, phasesKey{}, r)
}

// withoutPhases keeps a request made inside another (a sign-in to renew the token) out of the
// phases: its time shows in the outer request's send.
func withoutPhases(ctx context.Context) context.Context {
	return context.WithValue(ctx, phasesKey{}, (*phase.Recorder)(nil))
}

func phasesFrom(ctx context.Context) *phase.Recorder {
	r, _ := ctx.Value(phasesKey{}).(*phase.Recorder)
	return r
}

// laps follows one request through its phases. The transport calls the trace's hooks from its own
// goroutines, hence the lock.
type laps struct {
	r  *phase.Recorder
	mu sync.Mutex
	m  phase.Mark
}

func startLaps(r *phase.Recorder) *laps { return &laps{r: r, m: r.Start()} }

// lap ends phase id now.
func (l *laps) lap(id phase.ID) {
	l.mu.Lock()
	l.m = l.r.Lap(l.m, id)
	l.mu.Unlock()
}

// trace ends send when the request is written and wait at the answer's first byte.
func (l *laps) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest:         func(httptrace.WroteRequestInfo) { l.lap(phase.Send) },
		GotFirstResponseByte: func() { l.lap(phase.Wait) },
	})
}

// timedBody makes every read of an answer's body drain, and the time between reads decode.
type timedBody struct {
	io.ReadCloser
	l *laps
}

func (b *timedBody) Read(p []byte) (int, error) {
	b.l.lap(phase.Decode)
	n, err := b.ReadCloser.Read(p)
	b.l.lap(phase.Drain)
	return n, err
}
