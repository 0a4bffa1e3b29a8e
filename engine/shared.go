package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/internal/postgres"
)

// shared holds what the targets of one run share: the person files handed to clients in other
// processes, and one throwaway PostgreSQL server, so that targets compared on PostgreSQL meet the
// same server. Everything is created on first use and removed by stop.
type shared struct {
	dir  string // the run directory
	logf func(format string, args ...any)

	mu    sync.Mutex
	files map[int]string // size -> person file
	pg    *postgres.Lazy
}

func newShared(dir string, logf func(string, ...any)) *shared {
	return &shared{dir: dir, logf: logf, files: map[int]string{},
		pg: &postgres.Lazy{Options: postgres.Options{TempDir: dir, Logf: logf}}}
}

// datasetFile writes ds to a person file once per size and returns its path.
func (s *shared) datasetFile(ds *dataset.Persons) func() (string, error) {
	return func() (string, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if p, ok := s.files[ds.Len()]; ok {
			return p, nil
		}
		p := filepath.Join(s.dir, fmt.Sprintf("persons-%d.bin", ds.Len()))
		if err := ds.WriteFile(p); err != nil {
			return "", fmt.Errorf("write the person file: %w", err)
		}
		s.files[ds.Len()] = p
		return p, nil
	}
}

// postgreSQL starts the run's throwaway server on first use (a failure is remembered, so every
// target gets the same answer) and returns its DSN.
func (s *shared) postgreSQL(ctx context.Context) (string, error) {
	srv, err := s.pg.Server(ctx)
	if err != nil {
		return "", err
	}
	return srv.DSN("postgres"), nil
}

// postgreSQLFor is postgreSQL for one target, noting in uses that the target asked for the server, so
// that its memory figures include the server's (docs/memory.md).
func (s *shared) postgreSQLFor(uses *atomic.Bool) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		uses.Store(true)
		return s.postgreSQL(ctx)
	}
}

// serverPID is the main process of the run's PostgreSQL server, 0 when none runs or its processes
// cannot be read (a container).
func (s *shared) serverPID() int {
	if srv := s.pg.Started(); srv != nil {
		return srv.PID()
	}
	return 0
}

// stop stops the shared server and removes the person files.
func (s *shared) stop() error {
	err := s.pg.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.files {
		os.Remove(p)
	}
	s.files = map[int]string{}
	return err
}
