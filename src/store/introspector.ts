import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  type Kysely,
  PostgresDialect,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely';

interface ColumnRow {
  schema: string;
  table: string;
  kind: string;
  column: string | null;
  type: string | null;
  type_schema: string | null;
  not_null: boolean | null;
  has_default: boolean | null;
  serial: string | null;
}

/**
 * Kysely's PostgreSQL introspector reads every table of every schema of the database, calling
 * `pg_get_serial_sequence` per column; when another client drops a schema or table meanwhile, that query fails
 * (`3F000 schema "…" does not exist`), and with it Kysely's Migrator, which introspects to find its bookkeeping
 * tables. This one reads only the connection's own schema (`current_schema()`, the first existing schema of the
 * search path), so what other schemas do cannot fail it, and a `schema_migrations` table in another schema is never
 * mistaken for ours.
 */
export class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<SchemaMetadata>`select nspname as name from pg_catalog.pg_namespace`.execute(this.#db);
    return rows.map((row) => ({ name: row.name }));
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select ns.nspname as schema, c.relname as table, c.relkind as kind, a.attname as column,
             typ.typname as type, dtns.nspname as type_schema, a.attnotnull as not_null, a.atthasdef as has_default,
             case when a.attname is null then null
                  else pg_get_serial_sequence(quote_ident(ns.nspname) || '.' || quote_ident(c.relname), a.attname)
             end as serial
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      left join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      left join pg_catalog.pg_type typ on typ.oid = a.atttypid
      left join pg_catalog.pg_namespace dtns on dtns.oid = typ.typnamespace
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
      order by c.relname, a.attnum`.execute(this.#db);
    const tables = new Map<string, TableMetadata>();
    for (const row of rows) {
      if (
        !options.withInternalKyselyTables &&
        (row.table === DEFAULT_MIGRATION_TABLE || row.table === DEFAULT_MIGRATION_LOCK_TABLE)
      )
        continue;
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.kind === 'v', columns: [] };
        tables.set(row.table, table);
      }
      if (row.column === null) continue;
      table.columns.push({
        name: row.column,
        dataType: row.type ?? '',
        ...(row.type_schema ? { dataTypeSchema: row.type_schema } : {}),
        isNullable: !row.not_null,
        hasDefaultValue: row.has_default === true,
        isAutoIncrementing: row.serial !== null,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

/** Kysely's PostgreSQL dialect, introspecting only the connection's own schema (see CurrentSchemaIntrospector). */
export class ScopedPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}
