package pgtest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestForTestSharesOneServer(t *testing.T) {
	a, b := ForTest(t), ForTest(t)
	if a != b {
		t.Fatalf("ForTest returned two servers: %s and %s", a.DSN(""), b.DSN(""))
	}
	if a.Err() != nil {
		t.Fatalf("shared server: %v", a.Err())
	}
}

func TestNewDatabaseIsFreshAndDropped(t *testing.T) {
	srv := ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var name string
	t.Run("user", func(t *testing.T) {
		dsn := NewDatabase(t)
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		// Left open on purpose: the drop must end it.
		if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
		var tables int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables); err != nil || tables != 0 {
			t.Fatalf("fresh database has %d tables (%v)", tables, err)
		}
		if _, err := conn.Exec(ctx, "CREATE TABLE t (x int)"); err != nil {
			t.Fatal(err)
		}
	})
	if !strings.HasPrefix(name, "t_testnewdatabaseisfreshanddropped_user_") {
		t.Errorf("database name %q does not follow the test name", name)
	}
	conn, err := pgx.Connect(ctx, srv.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil || n != 0 {
		t.Errorf("database %s still exists after its test (%d, %v)", name, n, err)
	}
}

func TestDatabaseName(t *testing.T) {
	for _, tc := range []struct {
		test string
		n    int64
		want string
	}{
		{"TestX", 1, "t_testx_1"},
		{"TestX/sub case#01", 12, "t_testx_sub_case_01_12"},
		{strings.Repeat("Long", 30), 7, "t_" + strings.Repeat("long", 30)[:59] + "_7"},
	} {
		got := databaseName(tc.test, tc.n)
		if got != tc.want || len(got) > 63 {
			t.Errorf("databaseName(%q, %d) = %q (%d bytes), want %q", tc.test, tc.n, got, len(got), tc.want)
		}
	}
}

func TestSkipOnlyWhenAsked(t *testing.T) {
	t.Setenv(SkipEnv, "1")
	skipped := true
	t.Run("skips", func(t *testing.T) {
		ForTest(t)
		skipped = false
	})
	if !skipped {
		t.Errorf("ForTest ran with %s=1", SkipEnv)
	}
}
