package config

import (
	"strings"
	"testing"
	"time"

	"github.com/dbbench/dbbench/workloads/ycsb"
)

const ycsbBase = `name: y
workloads: [ycsb-a]
targets:
  - {name: mem, adapter: memory}
`

// TestLoadConfig: the load: and ycsb: sections as the plan resolves them, with their defaults.
func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name, extra string
		ci          bool
		check       func(t *testing.T, p *Plan)
	}{
		{"no load: a closed loop, YCSB defaults, size the record count", "", false, func(t *testing.T, p *Plan) {
			if p.Load != nil || p.YCSB.RecordCount != DefaultRecordCount || len(p.Sizes) != 1 || p.Sizes[0] != DefaultRecordCount {
				t.Errorf("load %+v, ycsb %+v, sizes %v", p.Load, p.YCSB, p.Sizes)
			}
			if !p.Workloads[0].YCSB || p.Workloads[0].Custom || p.Workloads[0].CrossCheck {
				t.Errorf("workload %+v", p.Workloads[0])
			}
		}},
		{"rate and duration", "load: {rate: 2000, duration: 3s, policy: drop, arrivals: poisson, timeout: 50ms}\n", false, func(t *testing.T, p *Plan) {
			l := p.Load
			if !l.Open() || l.Rate != 2000 || l.Duration != 3*time.Second || l.Policy != "drop" || l.Arrivals != "poisson" || l.Workers != DefaultLoadWorkers || l.Timeout != 50*time.Millisecond || l.Precise {
				t.Errorf("%+v", l)
			}
		}},
		{"precise", "load: {rate: 10000, duration: 3s, precise: true}\n", false, func(t *testing.T, p *Plan) {
			if !p.Load.Precise || p.AsRun["load"].(map[string]any)["precise"] != true {
				t.Errorf("%+v, as run %v", p.Load, p.AsRun["load"])
			}
		}},
		{"error budget: default, none, given", "load: {rate: 100, duration: 1s}\n", false, func(t *testing.T, p *Plan) {
			if p.Load.ErrorBudget() != DefaultMaxErrorRate || (*LoadPlan)(nil).ErrorBudget() != DefaultMaxErrorRate {
				t.Errorf("%+v", p.Load)
			}
		}},
		{"max_error_rate and check_sample", "load: {rate: 100, duration: 1s, max_error_rate: 5%}\nycsb: {check_sample: true}\n", false, func(t *testing.T, p *Plan) {
			if p.Load.ErrorBudget() != 0.05 || !p.YCSB.CheckSample || p.AsRun["load"].(map[string]any)["max_error_rate"] != 0.05 {
				t.Errorf("%+v %+v, as run %v", p.Load, p.YCSB, p.AsRun["load"])
			}
		}},
		{"closed loop of workers", "load: {workers: 16, ops: 500}\n", false, func(t *testing.T, p *Plan) {
			if p.Load.Open() || p.Load.Workers != 16 || p.Load.Ops != 500 {
				t.Errorf("%+v", p.Load)
			}
		}},
		{"a ramp by durations from 0, its duration the last stage's", "load:\n  stages:\n    - {duration: 5s, rate: 1000}\n    - {duration: 10s, rate: 3000}\n", false, func(t *testing.T, p *Plan) {
			want := []LoadStage{{0, 0}, {5 * time.Second, 1000}, {15 * time.Second, 3000}}
			if len(p.Load.Stages) != 3 || p.Load.Stages[1] != want[1] || p.Load.Stages[2] != want[2] || p.Load.Duration != 15*time.Second {
				t.Errorf("%+v", p.Load)
			}
		}},
		{"ycsb keys", "ycsb: {recordcount: 500, operationcount: 900, fieldcount: 3, fieldlength: 8, insertorder: ordered, requestdistribution: uniform}\n", false, func(t *testing.T, p *Plan) {
			def, err := p.YCSB.Definition("ycsb-a")
			if err != nil || p.Sizes[0] != 500 || p.YCSB.OperationCount != 900 || def.FieldCount != 3 || def.FieldLength != 8 || !def.Ordered || def.RequestDistribution != "uniform" {
				t.Errorf("%+v %+v %v", p.YCSB, def, err)
			}
		}},
		{"ci overlays keys, stages replacing the rate", "load: {rate: 100, duration: 10s}\nycsb: {recordcount: 5000}\nci:\n  load: {stages: [{at: 0s, rate: 10}, {at: 1s, rate: 20}]}\n  ycsb: {recordcount: 50}\n", true, func(t *testing.T, p *Plan) {
			if p.Load.Rate != 0 || len(p.Load.Stages) != 2 || p.Load.Duration != 10*time.Second || p.Sizes[0] != 50 {
				t.Errorf("%+v %+v", p.Load, p.YCSB)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("y.yaml", []byte(ycsbBase+tt.extra))
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.Resolve(registry(t), tt.ci)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, p)
		})
	}
}

// TestLoadConfigErrors: each mistake is one line naming the line it is on.
func TestLoadConfigErrors(t *testing.T) {
	tests := []struct{ name, config, want string }{
		{"negative rate", ycsbBase + "load: {rate: -5}\n", "y.yaml:5: load.rate must be a positive number"},
		{"rate and stages", ycsbBase + "load:\n  rate: 5\n  stages: [{at: 0s, rate: 1}]\n", "y.yaml:7: load: give either rate or stages"},
		{"bad policy", ycsbBase + "load: {rate: 5, policy: shed}\n", "y.yaml:5: load.policy \"shed\": want one of queue, drop"},
		{"bad arrivals", ycsbBase + "load: {rate: 5, arrivals: bursty}\n", "load.arrivals \"bursty\""},
		{"bad duration", ycsbBase + "load: {rate: 5, duration: soon}\n", "y.yaml:5: load.duration \"soon\""},
		{"drop in a closed loop", ycsbBase + "load: {policy: drop}\n", "y.yaml:5: load.policy drop needs a rate"},
		{"stages not increasing", ycsbBase + "load:\n  stages:\n    - {at: 0s, rate: 1}\n    - {at: 0s, rate: 2}\n", "y.yaml:8: load stage 2 at 0s is not after"},
		{"stage with at and duration", ycsbBase + "load:\n  stages:\n    - {at: 0s, duration: 1s, rate: 1}\n", "y.yaml:7: load stage 1: give at or duration"},
		{"every stage zero", ycsbBase + "load:\n  stages:\n    - {at: 0s, rate: 0}\n    - {at: 1s, rate: 0}\n", "every stage has rate 0"},
		{"unknown load key", ycsbBase + "load: {rat: 5}\n", "y.yaml:5"},
		{"too many workers", ycsbBase + "load: {rate: 5, workers: 100000}\n", "load.workers must be at most"},
		{"precise not a boolean", ycsbBase + "load: {rate: 5, precise: spin}\n", "y.yaml:5: load.precise must be true or false, got \"spin\""},
		{"bad workload letter", ycsbBase + "ycsb: {workload: g}\n", "y.yaml:5: ycsb.workload \"g\""},
		{"bad distribution", ycsbBase + "ycsb: {requestdistribution: pareto}\n", "y.yaml:5: ycsb.requestdistribution \"pareto\""},
		{"bad insert order", ycsbBase + "ycsb: {insertorder: random}\n", "ycsb.insertorder \"random\""},
		{"error rate above 1", ycsbBase + "load: {rate: 5, duration: 1s, max_error_rate: 1.5}\n", "y.yaml:5: load.max_error_rate must be between 0 and 1"},
		{"zero mix", strings.Replace(ycsbBase, "ycsb-a", "ycsb", 1) + "ycsb: {mix: {read: 0}}\n", "y.yaml:5: ycsb.mix: every proportion is zero"},
		{"workload ycsb without a mix", strings.Replace(ycsbBase, "ycsb-a", "ycsb", 1), "workload ycsb (line 2) needs ycsb.workload"},
		{"load without a YCSB workload", "name: y\ndataset: {persons: 10}\nworkloads: [scan]\ntargets: [{adapter: memory}]\nload: {rate: 5}\n", "y.yaml:5: load: applies to YCSB workloads"},
		{"no dataset with persons workloads", "name: y\nworkloads: [scan, ycsb-a]\ntargets: [{adapter: memory}]\n", "missing dataset"},
		{"sizes on a YCSB workload", "name: y\nworkloads: [{name: ycsb-a, ops: 5}]\ntargets: [{adapter: memory}]\n", "y.yaml:2: workload ycsb-a takes its sizes from the ycsb: section"},
		{"ci.load without load", ycsbBase + "ci: {load: {rate: 5}}\n", "y.yaml:5: ci.load changes the config's load: section"},
		{"a target without record operations", strings.Replace(ycsbBase, "ycsb-a", "ycsb-e", 1) + "  - {name: pg, adapter: pages}\n",
			"y.yaml:2: target pg (pages) cannot run workload ycsb-e (insert=0.05 scan=0.95): it cannot serve read, insert, scan (its targets do not implement those record capabilities"},
		{"a write-only mix still needs reads", "name: y\nworkloads: [ycsb]\nycsb: {mix: {update: 1}}\ntargets: [{name: pg, adapter: pages}]\n",
			"reads are needed to verify every write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("y.yaml", []byte(tt.config))
			if err == nil {
				_, err = c.Resolve(registry(t), false)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// TestOverrideLoad: --rate and --duration make an open loop of a closed one, replace a ramp, and
// are refused where there is no YCSB workload.
func TestOverrideLoad(t *testing.T) {
	resolve := func(cfg string) *Plan {
		c, err := Parse("y.yaml", []byte(cfg))
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Resolve(registry(t), false)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := resolve(ycsbBase)
	if err := p.OverrideLoad(500, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if !p.Load.Open() || p.Load.Rate != 500 || p.Load.Duration != 2*time.Second || p.Load.Workers != DefaultLoadWorkers || p.AsRun["load"] == nil {
		t.Errorf("%+v", p.Load)
	}
	p = resolve(ycsbBase + "load: {stages: [{at: 0s, rate: 1}, {at: 4s, rate: 9}], workers: 3, ops: 40}\n")
	if err := p.OverrideLoad(0, time.Second); err != nil || len(p.Load.Stages) != 2 || p.Load.Duration != time.Second || p.Load.Ops != 0 || p.Load.Workers != 3 {
		t.Errorf("%v %+v", err, p.Load)
	}
	if err := p.OverrideLoad(-1, 0); err == nil {
		t.Error("a negative rate was taken")
	}
	if err := p.SetPrecise(); err != nil || !p.Load.Precise || p.AsRun["load"].(map[string]any)["precise"] != true {
		t.Errorf("--precise: %v %+v, as run %v", err, p.Load, p.AsRun["load"])
	}
	p = resolve("name: y\ndataset: {persons: 10}\nworkloads: [scan]\ntargets: [{adapter: memory}]\n")
	if err := p.OverrideLoad(100, 0); err == nil || !strings.Contains(err.Error(), "apply to YCSB workloads") {
		t.Errorf("got %v", err)
	}
	for _, cfg := range []string{ycsbBase, "name: y\ndataset: {persons: 10}\nworkloads: [scan]\ntargets: [{adapter: memory}]\n"} {
		if err := resolve(cfg).SetPrecise(); err == nil || !strings.Contains(err.Error(), "--precise applies to an open loop") {
			t.Errorf("--precise on a closed loop: %v", err)
		}
	}
	if _, ok := ycsb.Lookup("ycsb-f"); !ok || !IsYCSB("ycsb-f") || IsYCSB("scan") {
		t.Error("IsYCSB")
	}
}
