package load_test

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/engine/load"
)

// TestScheduleAccuracy measures how precisely the workers keep a schedule on this machine:
// point lookups on the memory store at DBBENCH_LOAD_RATE ops/s (default 10,000) for
// DBBENCH_LOAD_SECONDS (default 5): start lag p50/p99/p99.9, achieved rate against the target, and
// the generator's cost (its thread's CPU, spinning included; its work per operation, waiting
// excluded). DBBENCH_LOAD_PRECISE=1 runs it in precise mode (Config.Precise). It is a measurement, not a unit test: it runs only with DBBENCH_LOAD_ACCURACY=1
// (.ci/load-accuracy) and asserts nothing about the figures, which depend on the machine's load.
func TestScheduleAccuracy(t *testing.T) {
	if os.Getenv("DBBENCH_LOAD_ACCURACY") != "1" {
		t.Skip("a measurement: run .ci/load-accuracy (DBBENCH_LOAD_ACCURACY=1)")
	}
	rate := envFloat(t, "DBBENCH_LOAD_RATE", 10000)
	seconds := envFloat(t, "DBBENCH_LOAD_SECONDS", 5)
	workers := int(envFloat(t, "DBBENCH_LOAD_WORKERS", 4))
	arrival := load.Arrival(os.Getenv("DBBENCH_LOAD_ARRIVAL"))
	precise := os.Getenv("DBBENCH_LOAD_PRECISE") == "1"
	ctx := context.Background()
	ds, err := dataset.Generate(100_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := memory.New().Open(ctx, adapters.Options{}, adapters.Env{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	if err := tgt.Load(ctx, ds); err != nil {
		t.Fatal(err)
	}
	reader := tgt.(adapters.PointReader)
	r := rand.New(rand.NewPCG(1, 2))
	cfg := load.Config{
		Schedule: load.Schedule{Rate: rate, Duration: time.Duration(seconds * float64(time.Second)), Arrival: arrival, Seed: 1},
		Workers:  workers,
		Precise:  precise,
	}
	res, err := load.Run(ctx, cfg, func(int64) (int, int) { return 0, r.IntN(ds.Len()) },
		func(ctx context.Context, op load.Op[int]) error {
			_, err := reader.Lookup(ctx, ds.Email(op.Arg))
			return err
		})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	c := res.Types[0]
	us := func(p float64) float64 { return float64(c.StartLag.ValueAtQuantile(p)) / 1e3 }
	loadavg, _ := os.ReadFile("/proc/loadavg")
	t.Logf("load average at the end (1, 5, 15 min): %s", strings.TrimSpace(string(loadavg)))
	t.Logf("target %.0f ops/s (%s, precise %v), %d workers, %.0f s: achieved %.1f ops/s (%.3f%% off), %d ops, %d late (> %v), %d waited for a worker",
		res.Target, orDefault(string(arrival), "constant"), precise, workers, seconds, res.Achieved, 100*(res.Achieved/res.Target-1), res.Completed, res.Late, load.DefaultLateAfter, res.Waited)
	t.Logf("start lag p50 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us; service p50 %.2f us, p99 %.2f us",
		us(50), us(99), us(99.9), float64(c.StartLag.Max())/1e3, float64(c.Service.ValueAtQuantile(50))/1e3, float64(c.Service.ValueAtQuantile(99))/1e3)
	g := res.Generator
	t.Logf("generator: CPU %v over %.0f s (%.0f%% of a core: spinning %v, sleeping %v; measured %v), %.0f ns CPU per op; work per op (waiting excluded) %d ns; own late %d, saturation %q",
		g.CPU, res.Span.Seconds(), 100*g.CPU.Seconds()/res.Span.Seconds(), g.Spin, g.Sleep, g.CPUMeasured, float64(g.CPU.Nanoseconds())/float64(res.Scheduled),
		g.WorkPerOp(res.Scheduled).Nanoseconds(), g.Late, res.Saturation())
}

func envFloat(t *testing.T, name string, def float64) float64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 {
		t.Fatalf("%s=%q: want a positive number", name, s)
	}
	return v
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
