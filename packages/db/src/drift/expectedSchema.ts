import { getDMMF, type GetDMMFError } from "@prisma/get-dmmf";
import { schemaDefault } from "./defaults.ts";
import { columnType, UnsupportedSchemaError } from "./postgresTypes.ts";
import type {
  ExpectedColumn,
  ExpectedSchema,
  ExpectedTable,
  ForeignKeyShape,
  IndexShape,
  ReferentialAction,
} from "./shapes.ts";

type Datamodel = Exclude<ReturnType<typeof getDMMF>, GetDMMFError>["datamodel"];
type Model = Datamodel["models"][number];
type Field = Model["fields"][number];
type DmmfIndex = Datamodel["indexes"][number];

/** Prisma colours its validation messages; they end up in test output and logs. */
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

/** schema.prisma did not parse or validate; `message` is Prisma's, without colours. */
export class SchemaParseError extends Error {
  override readonly name = "SchemaParseError";
}

/** The database schema that `schemaText` describes, as Prisma's migrations would create it. */
export function expectedSchema(schemaText: string): ExpectedSchema {
  const result = getDMMF({ datamodel: schemaText });
  if ("error" in result) {
    throw new SchemaParseError(prismaMessage(result.error.message).replace(ANSI_COLOUR, ""));
  }
  return expectedFromDatamodel(result.datamodel);
}

/** The wasm engine reports `{"error_code":"P1012","message":"…"}`; the inner message is the readable part. */
function prismaMessage(raw: string): string {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (
      typeof parsed === "object" &&
      parsed !== null &&
      "message" in parsed &&
      typeof parsed.message === "string"
    ) {
      return parsed.message;
    }
  } catch {
    // Not the JSON envelope: the raw text is the message.
  }
  return raw;
}

export function expectedFromDatamodel(datamodel: Datamodel): ExpectedSchema {
  const lookup = new DatamodelLookup(datamodel);
  const tables = datamodel.models.map((model) => expectedTable(model, lookup));
  return {
    tables: tables.sort((a, b) => compareText(a.name, b.name)),
    enums: datamodel.enums.map((e) => ({
      name: e.dbName ?? e.name,
      values: e.values.map((value) => value.dbName ?? value.name),
    })),
  };
}

class DatamodelLookup {
  readonly enumNames: ReadonlyMap<string, string>;
  readonly enumValues: ReadonlyMap<string, ReadonlyMap<string, string>>;
  readonly indexes: readonly DmmfIndex[];
  private readonly models: ReadonlyMap<string, Model>;

  constructor(datamodel: Datamodel) {
    this.enumNames = new Map(datamodel.enums.map((e) => [e.name, e.dbName ?? e.name]));
    this.enumValues = new Map(
      datamodel.enums.map((e) => [
        e.name,
        new Map(e.values.map((v) => [v.name, v.dbName ?? v.name])),
      ]),
    );
    this.indexes = datamodel.indexes;
    this.models = new Map(datamodel.models.map((model) => [model.name, model]));
  }

  model(name: string): Model {
    const model = this.models.get(name);
    if (model === undefined) throw new UnsupportedSchemaError(`relation to unknown model ${name}`);
    return model;
  }

  static table(model: Model): string {
    return model.dbName ?? model.name;
  }

  static column(model: Model, fieldName: string): string {
    const field = model.fields.find((candidate) => candidate.name === fieldName);
    if (field === undefined)
      throw new UnsupportedSchemaError(`${model.name} has no field ${fieldName}`);
    return field.dbName ?? field.name;
  }
}

function expectedTable(model: Model, lookup: DatamodelLookup): ExpectedTable {
  if (model.schema !== null && model.schema !== "public") {
    throw new UnsupportedSchemaError(
      `model ${model.name} lives in schema ${model.schema}; only public is checked`,
    );
  }
  const indexes = lookup.indexes.filter((index) => index.model === model.name);
  const shape = (index: DmmfIndex): IndexShape => ({
    columns: index.fields.map((field) => {
      const column = DatamodelLookup.column(model, field.name);
      return field.sortOrder === "desc" ? `${column} DESC` : column;
    }),
    method: index.algorithm?.toLowerCase() ?? "btree",
  });
  if (indexes.some((index) => index.type === "fulltext")) {
    throw new UnsupportedSchemaError(
      `model ${model.name} has a @@fulltext index, which Postgres does not support`,
    );
  }
  const primaryKey = indexes.find((index) => index.type === "id");
  return {
    name: DatamodelLookup.table(model),
    columns: model.fields.filter(isColumn).map((field) => expectedColumn(field, lookup)),
    primaryKey: primaryKey === undefined ? null : shape(primaryKey).columns,
    uniques: indexes.filter((index) => index.type === "unique").map(shape),
    indexes: indexes.filter((index) => index.type === "normal").map(shape),
    foreignKeys: model.fields.flatMap((field) => foreignKey({ model, field, lookup })),
  };
}

function isColumn(field: Field): boolean {
  return field.kind === "scalar" || field.kind === "enum";
}

function expectedColumn(field: Field, lookup: DatamodelLookup): ExpectedColumn {
  const { type, family } = columnType(field, lookup.enumNames);
  return {
    name: field.dbName ?? field.name,
    type,
    // Prisma creates scalar lists as nullable arrays although the client never writes NULL
    // (prisma/orm#4729); the check expects what Prisma's migrations produce.
    nullable: field.isList || !field.isRequired,
    default: schemaDefault(field, lookup.enumValues),
    family,
    isList: field.isList,
  };
}

interface RelationField {
  readonly model: Model;
  readonly field: Field;
  readonly lookup: DatamodelLookup;
}

/** The foreign key a relation field creates: only the side with `fields:` owns one. */
function foreignKey({ model, field, lookup }: RelationField): ForeignKeyShape[] {
  if (field.kind !== "object") return [];
  const from = field.relationFromFields ?? [];
  const target = lookup.model(field.type);
  if (from.length === 0) {
    const opposite = target.fields.find(
      (other) =>
        other.relationName === field.relationName && other !== field && other.kind === "object",
    );
    if (field.isList && opposite?.isList === true) {
      throw new UnsupportedSchemaError(
        `implicit many-to-many relation ${field.relationName ?? field.name} is not supported; use an explicit join model`,
      );
    }
    return [];
  }
  return [
    {
      columns: from.map((name) => DatamodelLookup.column(model, name)),
      referencedTable: DatamodelLookup.table(target),
      referencedColumns: (field.relationToFields ?? []).map((name) =>
        DatamodelLookup.column(target, name),
      ),
      // Prisma's defaults: Restrict for required relations, SetNull for optional ones; Cascade on update.
      onDelete: referentialAction(
        field.relationOnDelete ?? (field.isRequired ? "Restrict" : "SetNull"),
      ),
      onUpdate: referentialAction(field.relationOnUpdate ?? "Cascade"),
    },
  ];
}

function referentialAction(action: string): ReferentialAction {
  switch (action) {
    case "Cascade":
    case "Restrict":
    case "NoAction":
    case "SetNull":
    case "SetDefault":
      return action;
    default:
      throw new UnsupportedSchemaError(`unknown referential action ${action}`);
  }
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
