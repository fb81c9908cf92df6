import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * What the observability profile ships, read as Prometheus and Grafana will read it: every
 * instance of every service scraped, alert rules well formed, and every series a rule or a
 * panel asks for really made by the code (a typo would make an alert that can never fire).
 */
const ROOT = path.join(__dirname, '..', '..');
const DIR = path.join(ROOT, 'infra', 'observability');
const read = (file: string) => readFileSync(path.join(DIR, file), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const prometheus = parse(read('prometheus.yml')) as {
  rule_files: string[];
  scrape_configs: {
    job_name: string;
    dns_sd_configs?: { names: string[]; type: string; port: number }[];
    static_configs?: { targets: string[] }[];
  }[];
};
const rules = (parse(read('alerts.yml')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);
const dashboard = JSON.parse(read('grafana/dashboards/raseed.json')) as {
  panels: { title: string; datasource: { uid: string }; targets: { expr: string }[] }[];
};
const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      environment?: Record<string, string>;
      command?: string[];
      profiles?: string[];
      ports?: string[];
      image?: string;
      volumes?: string[];
    }
  >;
};

/** The TypeScript sources of the services and the gateway. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sources(file);
    return file.endsWith('.ts') ? [readFileSync(file, 'utf8')] : [];
  });
}
const code = [...sources(path.join(ROOT, 'services')), ...sources(path.join(ROOT, 'gateway', 'src'))].join(
  '\n',
);

/** The series a PromQL expression reads that the store defines itself (not prom-client's defaults). */
const ourSeries = (expr: string) =>
  [
    ...expr.matchAll(
      /\b(raseed_\w+|kafka_consumer_lag|bullmq_jobs|http_request_duration_seconds)(?:_count|_bucket|_sum)?\b/g,
    ),
  ].map((m) => m[1]!);

describe('Prometheus', () => {
  it('scrapes every instance of every service by DNS on the port it listens on, and the gateway on its metrics port', () => {
    const services = prometheus.scrape_configs.find((c) => c.job_name === 'services')!;
    const found = Object.fromEntries(services.dns_sd_configs!.map((c) => [c.names[0], String(c.port)]));
    for (const name of ['auth', 'wallet', 'catalog', 'orders', 'payments']) {
      expect({ [name]: found[name] }).toEqual({ [name]: compose.services[name]!.environment!.PORT });
    }
    expect(services.dns_sd_configs!.every((c) => c.type === 'A')).toBe(true);
    const gateway = prometheus.scrape_configs.find((c) => c.job_name === 'gateway')!;
    expect(gateway.static_configs![0]!.targets).toEqual([
      `gateway:${compose.services.gateway!.environment!.METRICS_PORT}`,
    ]);
    // The gateway's metrics port is for the compose network only.
    expect(compose.services.gateway!.ports!.join(' ')).not.toContain('9080');
    expect(prometheus.rule_files).toEqual(['alerts.yml']);
  });

  it('has the alerts the operators asked for, each with a summary and a description', () => {
    expect(rules.map((r) => r.alert).sort()).toEqual(
      [
        'ConsumerLagGrowing',
        'JobsFailing',
        'OrdersNeedAnAdmin',
        'OutboxStuck',
        'ReconcileMismatches',
        'ServerErrors',
        'TopUpsWaiting',
      ].sort(),
    );
    for (const rule of rules) {
      expect({
        alert: rule.alert,
        summary: !!rule.annotations?.summary,
        description: !!rule.annotations?.description,
      }).toEqual({
        alert: rule.alert,
        summary: true,
        description: true,
      });
      expect(['page', 'ticket']).toContain(rule.labels?.severity);
      if (rule.for) expect(rule.for).toMatch(/^\d+[smh]$/);
    }
  });

  it('alerts on the thresholds agreed: outbox 60 s, lag growing 5 min, 1 % 5xx, a top-up waiting an hour', () => {
    const expr = (name: string) => rules.find((r) => r.alert === name)!;
    expect(expr('OutboxStuck').expr).toMatch(/raseed_outbox_oldest_seconds\) > 60$/);
    expect(expr('ConsumerLagGrowing').for).toBe('5m');
    expect(expr('ServerErrors').expr).toMatch(/> 0\.01\s*$/);
    expect(expr('TopUpsWaiting').expr).toMatch(/raseed_topups_oldest_waiting_seconds\) > 3600$/);
  });

  it(
    'passes promtool check rules, and each alert fires on the figures it is for and not on healthy ones (alerts.test.yml)',
    () => {
      // Built from the Go module proxy on first use; npm test starts the build early.
      const promtool = execFileSync('bash', [path.join(DIR, 'promtool.sh')], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        timeout: 25 * 60_000,
      }).trim();
      for (const args of [
        ['check', 'rules', 'alerts.yml'],
        ['test', 'rules', 'alerts.test.yml'],
      ]) {
        const run = spawnSync(promtool, args, { cwd: DIR, encoding: 'utf8' });
        expect({ args, status: run.status, output: run.stdout + run.stderr }).toMatchObject({
          args,
          status: 0,
        });
      }
      // Every alert has its unit test.
      const tested = new Set([...read('alerts.test.yml').matchAll(/alertname: (\w+)/g)].map((m) => m[1]));
      expect(rules.map((r) => r.alert).filter((a) => !tested.has(a))).toEqual([]);
    },
    30 * 60_000,
  );

  it.each(rules.map((r) => [r.alert, r.expr]))('%s reads only series the code makes', (_alert, expr) => {
    const series = ourSeries(expr);
    expect(series.length).toBeGreaterThan(0);
    for (const name of series)
      expect({ name, defined: code.includes(`'${name}'`) }).toEqual({ name, defined: true });
  });
});

describe('Grafana', () => {
  it('is provisioned with Prometheus and the Raseed dashboard', () => {
    const datasources = parse(read('grafana/provisioning/datasources/prometheus.yml')) as {
      datasources: { uid: string; url: string }[];
    };
    expect(datasources.datasources[0]).toMatchObject({ uid: 'prometheus', url: 'http://prometheus:9090' });
    const volumes = compose.services.grafana!.volumes!;
    expect(volumes).toContain('./infra/observability/grafana/dashboards:/var/lib/grafana/dashboards:ro');
    const providers = parse(read('grafana/provisioning/dashboards/raseed.yml')) as {
      providers: { options: { path: string } }[];
    };
    expect(providers.providers[0]!.options.path).toBe('/var/lib/grafana/dashboards');
  });

  it.each(dashboard.panels.map((p) => [p.title, p]))(
    'the panel "%s" reads series the code makes',
    (_title, panel) => {
      expect(panel.datasource.uid).toBe('prometheus');
      for (const { expr } of panel.targets) {
        for (const name of ourSeries(expr))
          expect({ name, defined: code.includes(`'${name}'`) }).toEqual({ name, defined: true });
      }
    },
  );

  it('runs only with the observability profile, from pinned images, reachable from this machine only', () => {
    for (const name of ['prometheus', 'grafana', 'jaeger']) {
      const def = compose.services[name]!;
      expect(def.profiles).toEqual(['observability']);
      expect(def.image).toMatch(/:v?\d+\.\d+\.\d+$/);
      for (const port of def.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it("sends every service's and the gateway's traces to Jaeger over OTLP when asked", () => {
    expect(compose.services.jaeger!.command).toContain(
      '--set=receivers.otlp.protocols.http.endpoint=0.0.0.0:4318',
    );
    for (const name of ['gateway', 'auth', 'wallet', 'catalog', 'orders', 'payments']) {
      const env = compose.services[name]!.environment!;
      expect({ name, exporter: env.OTEL_TRACES_EXPORTER, endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT }).toEqual(
        {
          name,
          exporter: '${OTEL_TRACES_EXPORTER:-none}',
          endpoint: 'http://jaeger:4318',
        },
      );
    }
  });
});
