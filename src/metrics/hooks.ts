/**
 * Where the layers below the server (the store, the requests, the script directive) report what
 * the metrics count. No-ops until `families.ts` is loaded — by the server and its evaluation
 * threads — so a CLI command such as `flowmark render` never loads prom-client.
 */
export interface MetricSinks {
  /** A top-level store transaction ended (committed, or rolled back by an error). */
  transaction(engine: string, startedAt: number, committed: boolean): void;
  /** A request status was written (a label from a closed set). */
  requestStatus(status: string): void;
  /** A `<@script>` ran: its engine and outcome (`ok` or the error's kind). */
  scriptRun(engine: string, outcome: string): void;
}

export const metricSinks: MetricSinks = {
  transaction() {},
  requestStatus() {},
  scriptRun() {},
};
