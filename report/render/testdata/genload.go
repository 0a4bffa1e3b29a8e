//go:build ignore

// genload writes load.json, the open-loop report the render tests read: two targets (memory keeps
// up, sqlite is saturated) running ycsb-a at 1,000 ops/s for 10 s with 16 workers, from a simulated
// queue (lognormal service times, a dispatcher that now and then hands an operation over late), with
// four assertions evaluated on it. Run from report/render: go run testdata/genload.go
package main

import (
	"log"
	"math"
	"math/rand"
	"slices"
	"time"

	"github.com/dbbench/dbbench/report"
	"github.com/dbbench/dbbench/report/assertion"
)

type simOp struct {
	op                        int
	intended, start, end, lag int64
	service, response         int64
	waited                    bool
}

// simulate an open loop: 1000 ops/s for 10 s, 16 workers, queue policy, lognormal service times.
func simulate(seed int64, median [2]float64, sigma float64) []simOp {
	rng := rand.New(rand.NewSource(seed))
	free := make([]int64, 16)
	var out []simOp
	for k := 0; k < 10000; k++ {
		t := int64(k) * 1e6
		op := 0
		if rng.Float64() < 0.5 {
			op = 1
		}
		w := 0
		for i := range free {
			if free[i] < free[w] {
				w = i
			}
		}
		waited := free[w] > t+1e6
		start := max(t, free[w]) + 150 + int64(rng.ExpFloat64()*100)
		if rng.Intn(500) == 0 {
			start += int64(rng.ExpFloat64() * 2e6) // the dispatcher slept through a slot
		}
		svc := int64(median[op] * math.Exp(sigma*rng.NormFloat64()))
		end := start + svc
		free[w] = end
		out = append(out, simOp{op: op, intended: t, start: start, end: end, lag: start - t, service: svc, response: end - t, waited: waited})
	}
	return out
}

func enc(vals []int64) (string, map[string]float64) {
	h := report.NewHistogram()
	for _, v := range vals {
		report.Record(h, time.Duration(v))
	}
	s, err := report.EncodeHistogram(h)
	if err != nil {
		log.Fatal(err)
	}
	p := report.Percentiles(h)
	return s, map[string]float64{"p50": p["p50"], "p90": p["p90"], "p99": p["p99"], "p999": p["p999"], "max": p["max"], "mean": math.Round(p["mean"])}
}

func loadResult(target string, ops []simOp) report.Result {
	names := []string{"read", "update"}
	l := &report.Load{Loop: "open", Arrivals: "constant", Policy: "queue", Workers: 16, TargetRate: 1000, DurationNs: 10e9,
		Scheduled: int64(len(ops)), Completed: int64(len(ops)), LateAfter: 1e6}
	var span int64 = 10e9
	var resp, svc, lag []int64
	for _, o := range ops {
		span = max(span, o.end)
		if o.lag > 1e6 {
			l.Late++
		}
		if o.waited {
			l.Waited++
		} else {
			l.Generator.MaxLagNs = max(l.Generator.MaxLagNs, o.lag)
			if o.lag > 1e6 {
				l.Generator.Late++
			}
		}
		resp, svc, lag = append(resp, o.response), append(svc, o.service), append(lag, o.lag)
	}
	l.SpanNs = span
	l.Achieved = float64(len(ops)) / (float64(span) / 1e9)
	if float64(l.Waited) > 0.01*float64(len(ops)) {
		l.Saturation = "target saturated"
	}
	l.Generator = report.LoadGenerator{CPUNs: span / 9, CPUMeasured: true, CPUShare: 1.0 / 9, WorkPerOpNs: 850, Late: l.Generator.Late, MaxLagNs: l.Generator.MaxLagNs}
	figs := map[string]float64{"ops": float64(len(ops)), "errors": 0, "error_rate": 0, "achieved_rate": l.Achieved, "target_rate": 1000,
		"late": float64(l.Late), "dropped": 0, "waited": float64(l.Waited), "generator_late": float64(l.Generator.Late)}
	hist, rp := enc(resp)
	_, sp := enc(svc)
	_, lp := enc(lag)
	for _, k := range []string{"p50", "p90", "p99", "p999", "max", "mean"} {
		figs[k] = rp[k]
	}
	for _, c := range []struct {
		name string
		m    map[string]float64
	}{{"response", rp}, {"service", sp}, {"start_lag", lp}} {
		for k, v := range map[string]string{"p50": "_p50", "p99": "_p99", "p999": "_p999", "max": "_max"} {
			figs[c.name+v] = c.m[k]
		}
	}
	for i, name := range names {
		var r, s, g []int64
		for _, o := range ops {
			if o.op == i {
				r, s, g = append(r, o.response), append(s, o.service), append(g, o.lag)
			}
		}
		he, rm := enc(r)
		hs, sm := enc(s)
		hg, gm := enc(g)
		l.Types = append(l.Types, report.LoadType{Op: name, Count: int64(len(r)), Response: rm, Service: sm, StartLag: gm,
			Histogram: report.LoadHistograms{Response: he, Service: hs, StartLag: hg}})
		for _, c := range []struct {
			name string
			m    map[string]float64
		}{{"response", rm}, {"service", sm}, {"start_lag", gm}} {
			for k, v := range map[string]string{"p50": "_p50", "p99": "_p99", "p999": "_p999", "max": "_max"} {
				figs[name+"."+c.name+v] = c.m[k]
			}
		}
	}
	l.Intervals = intervals(ops, span)
	l.Hlog = "load." + target + ".hlog"
	return report.Result{Target: target, Workload: "ycsb-a", Size: 1000, Unit: "op", Status: "ok",
		Params:  map[string]any{"rate": 1000, "duration": "10s", "workers": 16},
		Figures: figs, Merged: map[string]float64{"p999": rp["p999"], "max": rp["max"]}, Histogram: hist,
		Repeats:      []report.Repeat{{Index: 0, Run: 1, ElapsedNs: span, Ops: int64(len(ops)), Figures: figs, Histogram: hist}},
		Verification: report.Verification{Method: "every read verified, every write read back", OK: true},
		Load:         l}
}

func main() {
	start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	r := &report.Report{SchemaVersion: report.SchemaVersion, Tool: report.Tool{Name: "dbbench", Version: "dev", Commit: "0000000"},
		Environment: report.Environment{GoVersion: "go1.26.0", OS: "linux", Arch: "amd64", CPUModel: "AMD EPYC", Cores: 2, GOMAXPROCS: 2, MemoryBytes: 8 << 30, Hostname: "test"},
		Run: report.Run{ConfigName: "ycsb-a-open", ConfigPath: "ycsb-a-open.yaml", Seed: 1, Sizes: []int{1000}, Repeats: 1, Order: "ABAB",
			StartedAt: start, FinishedAt: start.Add(26 * time.Second), Harness: report.Harness{TimerNs: 27, LoopNs: 98}, Isolation: "none",
			CommandLine: "dbbench run -c ycsb-a-open.yaml --rate 1000 --duration 10s"},
		Targets: []report.Target{{Name: "memory", Adapter: "memory", Options: map[string]any{}, Status: "ok", Instances: []report.Instance{{Size: 1000}}},
			{Name: "sqlite", Adapter: "sql", Options: map[string]any{"driver": "sqlite"}, Status: "ok", Instances: []report.Instance{{Size: 1000}}}},
	}
	r.Results = append(r.Results, loadResult("memory", simulate(1, [2]float64{2800, 4100}, 0.6)))
	r.Results = append(r.Results, loadResult("sqlite", simulate(2, [2]float64{14e6, 21e6}, 0.5)))
	r.Config = map[string]any{"name": "ycsb-a-open"}
	for _, c := range []string{
		"ycsb-a.read.response_p99[memory] <= 2ms",
		"ycsb-a.achieved_rate[sqlite] >= 0.99 * ycsb-a.target_rate[sqlite]",
		"ycsb-a.read.response_p99[sqlite] <= 100 * ycsb-a.read.response_p99[memory]",
		"ycsb-a.update.service_p99[sqlite] <= 100ms",
	} {
		a, err := assertion.Parse(c)
		if err != nil {
			log.Fatal(err)
		}
		r.Assertions = append(r.Assertions, a.Evaluate(r, 0, assertion.Rule{})...)
	}
	r.Verdict = "pass"
	if slices.ContainsFunc(r.Assertions, func(a report.Assertion) bool { return a.Verdict == "fail" }) {
		r.Verdict = "fail"
	}
	if err := report.Write("testdata/load.json", r); err != nil {
		log.Fatal(err)
	}
}

// intervals cuts the run into 1 s intervals: what completed in each, and the response times of those.
func intervals(ops []simOp, span int64) []report.LoadInterval {
	var out []report.LoadInterval
	for s := int64(0); s < span; s += 1e9 {
		iv := report.LoadInterval{StartNs: s, LengthNs: 1e9, TargetRate: 1000}
		if s >= 10e9 {
			iv.TargetRate = 0
		}
		var r []int64
		for _, o := range ops {
			if o.end >= s && o.end < s+1e9 {
				r = append(r, o.response)
			}
			if o.intended >= s && o.intended < s+1e9 && o.lag > 1e6 {
				iv.Late++
			}
		}
		iv.Achieved = float64(len(r))
		if len(r) > 0 {
			_, m := enc(r)
			iv.ResponseP50, iv.ResponseP99, iv.ResponseP999 = m["p50"], m["p99"], m["p999"]
		}
		out = append(out, iv)
	}
	return out
}
