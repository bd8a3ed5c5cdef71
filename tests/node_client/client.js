// A plain Node.js client: loads proto/ with @grpc/proto-loader and calls the service.
// Usage: node client.js HOST:PORT  -> prints one JSON object with what it saw.
"use strict";

const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTO_ROOT = path.resolve(__dirname, "..", "..", "proto");

function load() {
  const definition = protoLoader.loadSync(
    ["carrossel/v1/rulesets.proto", "carrossel/v1/rummy.proto"],
    { includeDirs: [PROTO_ROOT], keepCase: true, longs: String, enums: String, defaults: true },
  );
  return grpc.loadPackageDefinition(definition).carrossel.v1;
}

function unary(client, method, request) {
  return new Promise((resolve) => {
    const deadline = new Date(Date.now() + 10000);
    client[method](request, { deadline }, (error, reply) => resolve({ error, reply }));
  });
}

async function main() {
  const address = process.argv[2];
  if (!address) {
    console.error("usage: node client.js HOST:PORT");
    process.exit(2);
  }
  const v1 = load();
  const credentials = grpc.credentials.createInsecure();
  const rulesets = new v1.RulesetService(address, credentials);
  const rummy = new v1.RummyService(address, credentials);

  const listed = await unary(rulesets, "ListRulesets", {});
  if (listed.error) throw listed.error;
  const carrossel = listed.reply.rulesets.find((r) => r.id === "carrossel");

  const bad = await unary(rummy, "ValidateMove", {
    position: { ruleset: "carrossel", players: 2, hand: ["ZZ"], table: [], turn: {} },
    move: { table: [] },
  });

  console.log(JSON.stringify({
    ids: listed.reply.rulesets.map((r) => r.id),
    carrossel_knock_threshold: carrossel.knock_threshold,
    carrossel_wild_kind: carrossel.wild_kind,
    bad_request_code: bad.error ? bad.error.code : null,
    bad_request_has_details: Boolean(
      bad.error && bad.error.metadata.get("grpc-status-details-bin").length,
    ),
  }));
  rulesets.close();
  rummy.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
