/*eslint-disable block-scoped-var, id-length, no-control-regex, no-magic-numbers, no-mixed-operators, no-prototype-builtins, no-redeclare, no-shadow, no-var, sort-vars, default-case, jsdoc/require-param*/
"use strict";

var $protobuf = require("protobufjs/minimal");

// Common aliases
var $Reader = $protobuf.Reader, $Writer = $protobuf.Writer, $util = $protobuf.util;
var $Object = $util.global.Object, $undefined = $util.global.undefined, $Error = $util.global.Error, $RangeError = $util.global.RangeError, $Array = $util.global.Array, $TypeError = $util.global.TypeError, $String = $util.global.String, $Number = $util.global.Number, $parseInt = $util.global.parseInt, $BigInt = $util.global.BigInt, $isFinite = $util.global.isFinite;

// Exported root namespace
var $root = $protobuf.roots["default"] || ($protobuf.roots["default"] = {});

$root.metrics = (function() {

    /**
     * Namespace metrics.
     * @exports metrics
     * @namespace
     */
    var metrics = {};

    metrics.Batch = (function() {

        /**
         * Properties of a Batch.
         * @typedef {Object} metrics.Batch.$Properties
         * @property {string|null} [source] Batch source
         * @property {Array.<metrics.Series.$Properties>|null} [series] Batch series
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */

        /**
         * Properties of a Batch.
         * @memberof metrics
         * @interface IBatch
         * @augments metrics.Batch.$Properties
         * @deprecated Use metrics.Batch.$Properties instead.
         */

        /**
         * Shape of a Batch.
         * @typedef {metrics.Batch.$Properties} metrics.Batch.$Shape
         */

        /**
         * Constructs a new Batch.
         * @memberof metrics
         * @classdesc Represents a Batch.
         * @constructor
         * @param {metrics.Batch.$Properties=} [properties] Properties to set
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */
        var Batch = function (properties) {
            this.series = [];
            if (properties)
                for (var keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        };

        /**
         * Batch source.
         * @member {string} source
         * @memberof metrics.Batch
         * @instance
         */
        Batch.prototype.source = "";

        /**
         * Batch series.
         * @member {Array.<metrics.Series.$Properties>} series
         * @memberof metrics.Batch
         * @instance
         */
        Batch.prototype.series = $util.emptyArray;

        /**
         * Creates a new Batch instance using the specified properties.
         * @function create
         * @memberof metrics.Batch
         * @static
         * @param {metrics.Batch.$Properties=} [properties] Properties to set
         * @returns {metrics.Batch} Batch instance
         * @type {{
         *   (properties: metrics.Batch.$Shape): metrics.Batch & metrics.Batch.$Shape;
         *   (properties?: metrics.Batch.$Properties): metrics.Batch;
         * }}
         */
        Batch.create = function(properties) {
            return new Batch(properties);
        };

        /**
         * Encodes the specified Batch message. Does not implicitly {@link metrics.Batch.verify|verify} messages.
         * @function encode
         * @memberof metrics.Batch
         * @static
         * @param {metrics.Batch.$Properties} message Batch message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        Batch.encode = function (message, writer, _depth) {
            if (!writer)
                writer = $Writer.create();
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $util.recursionLimit)
                throw $Error("max depth exceeded");
            if (message.source != null && $Object.hasOwnProperty.call(message, "source") && message.source !== "")
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.source);
            if (message.series != null && message.series.length)
                for (var i = 0; i < message.series.length; ++i)
                    $root.metrics.Series.encode(message.series[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
            if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                for (var i = 0; i < message.$unknowns.length; ++i)
                    writer.raw(message.$unknowns[i]);
            return writer;
        };

        /**
         * Encodes the specified Batch message, length delimited. Does not implicitly {@link metrics.Batch.verify|verify} messages.
         * @function encodeDelimited
         * @memberof metrics.Batch
         * @static
         * @param {metrics.Batch.$Properties} message Batch message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        Batch.encodeDelimited = function(message, writer) {
            return this.encode(message, (writer || $Writer.create()).fork()).ldelim();
        };

        /**
         * Decodes a Batch message from the specified reader or buffer.
         * @function decode
         * @memberof metrics.Batch
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {metrics.Batch & metrics.Batch.$Shape} Batch
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        Batch.decode = function (reader, length, _end, _depth, _target) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $Reader.recursionLimit)
                throw $Error("max depth exceeded");
            var end, message, value;
            if (length === $undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw $RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = _target || new $root.metrics.Batch();
            while (reader.pos < end) {
                var start = reader.pos;
                var tag = reader.tag();
                if (tag === _end) {
                    _end = $undefined;
                    break;
                }
                var wireType = tag & 7;
                switch (tag >>>= 3) {
                case 1: {
                        if (wireType !== 2)
                            break;
                        if ((value = reader.stringVerify()).length)
                            message.source = value;
                        else
                            delete message.source;
                        continue;
                    }
                case 2: {
                        if (wireType !== 2)
                            break;
                        if (!(message.series && message.series.length))
                            message.series = [];
                        message.series.push($root.metrics.Series.decode(reader, reader.size(), $undefined, _depth + 1));
                        continue;
                    }
                }
                reader.skipType(wireType, _depth, tag);
                if (!reader.discardUnknown) {
                    $util.makeProp(message, "$unknowns", false);
                    (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                }
            }
            if (length !== $undefined) {
                if (reader.pos !== end)
                    throw $RangeError("index out of range");
                reader.len = length;
            }
            if (_end !== $undefined)
                throw $Error("missing end group");
            return message;
        };

        /**
         * Decodes a Batch message from the specified reader or buffer, length delimited.
         * @function decodeDelimited
         * @memberof metrics.Batch
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @returns {metrics.Batch & metrics.Batch.$Shape} Batch
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        Batch.decodeDelimited = function(reader) {
            if (!(reader instanceof $Reader))
                reader = new $Reader(reader);
            return this.decode(reader, reader.size());
        };

        /**
         * Verifies a Batch message.
         * @function verify
         * @memberof metrics.Batch
         * @static
         * @param {Object.<string,*>} message Plain object to verify
         * @returns {string|null} `null` if valid, otherwise the reason why it is not
         */
        Batch.verify = function (message, _depth) {
            if (typeof message !== "object" || message === null)
                return "object expected";
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $util.recursionLimit)
                return "max depth exceeded";
            if (message.source != null && $Object.hasOwnProperty.call(message, "source"))
                if (!$util.isString(message.source))
                    return "source: string expected";
            if (message.series != null && $Object.hasOwnProperty.call(message, "series")) {
                if (!$Array.isArray(message.series))
                    return "series: array expected";
                for (var i = 0; i < message.series.length; ++i) {
                    var error = $root.metrics.Series.verify(message.series[i], _depth + 1);
                    if (error)
                        return "series." + error;
                }
            }
            return null;
        };

        /**
         * Creates a Batch message from a plain object. Also converts values to their respective internal types.
         * @function fromObject
         * @memberof metrics.Batch
         * @static
         * @param {Object.<string,*>} object Plain object
         * @returns {metrics.Batch} Batch
         */
        Batch.fromObject = function (object, _depth) {
            if (object instanceof $root.metrics.Batch)
                return object;
            if (!$util.isObject(object))
                throw $TypeError(".metrics.Batch: object expected");
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $util.recursionLimit)
                throw $Error("max depth exceeded");
            var message = new $root.metrics.Batch();
            if (object.source != null)
                if (typeof object.source !== "string" || object.source.length)
                    message.source = $String(object.source);
            if (object.series) {
                if (!$Array.isArray(object.series))
                    throw $TypeError(".metrics.Batch.series: array expected");
                message.series = $Array(object.series.length);
                for (var i = 0; i < object.series.length; ++i) {
                    if (!$util.isObject(object.series[i]))
                        throw $TypeError(".metrics.Batch.series: object expected");
                    message.series[i] = $root.metrics.Series.fromObject(object.series[i], _depth + 1);
                }
            }
            return message;
        };

        /**
         * Creates a plain object from a Batch message. Also converts values to other types if specified.
         * @function toObject
         * @memberof metrics.Batch
         * @static
         * @param {metrics.Batch} message Batch
         * @param {$protobuf.IConversionOptions} [options] Conversion options
         * @returns {Object.<string,*>} Plain object
         */
        Batch.toObject = function (message, options, _depth) {
            if (!options)
                options = {};
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $util.recursionLimit)
                throw $Error("max depth exceeded");
            var object = {};
            if (options.arrays || options.defaults)
                object.series = [];
            if (options.defaults)
                object.source = "";
            if (message.source != null && $Object.hasOwnProperty.call(message, "source"))
                object.source = message.source;
            if (message.series && message.series.length) {
                object.series = $Array(message.series.length);
                for (var j = 0; j < message.series.length; ++j)
                    object.series[j] = $root.metrics.Series.toObject(message.series[j], options, _depth + 1);
            }
            return object;
        };

        /**
         * Converts this Batch to JSON.
         * @function toJSON
         * @memberof metrics.Batch
         * @instance
         * @returns {Object.<string,*>} JSON object
         */
        Batch.prototype.toJSON = function() {
            return Batch.toObject(this, $protobuf.util.toJSONOptions);
        };

        /**
         * Gets the type url for Batch
         * @function getTypeUrl
         * @memberof metrics.Batch
         * @static
         * @param {string} [prefix] Custom type url prefix, defaults to `"type.googleapis.com"`
         * @returns {string} The type url
         */
        Batch.getTypeUrl = function(prefix) {
            if (prefix === $undefined)
                prefix = "type.googleapis.com";
            return prefix + "/metrics.Batch";
        };

        return Batch;
    })();

    metrics.Series = (function() {

        /**
         * Properties of a Series.
         * @typedef {Object} metrics.Series.$Properties
         * @property {string|null} [name] Series name
         * @property {Object.<string,string>|null} [labels] Series labels
         * @property {number|Long|null} [startTimeUnixNano] Series startTimeUnixNano
         * @property {number|null} [intervalMs] Series intervalMs
         * @property {Array.<number>|null} [deltas] Series deltas
         * @property {Array.<number>|null} [values] Series values
         * @property {number|Long|null} [count] Series count
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */

        /**
         * Properties of a Series.
         * @memberof metrics
         * @interface ISeries
         * @augments metrics.Series.$Properties
         * @deprecated Use metrics.Series.$Properties instead.
         */

        /**
         * Shape of a Series.
         * @typedef {metrics.Series.$Properties} metrics.Series.$Shape
         */

        /**
         * Constructs a new Series.
         * @memberof metrics
         * @classdesc Represents a Series.
         * @constructor
         * @param {metrics.Series.$Properties=} [properties] Properties to set
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */
        var Series = function (properties) {
            this.labels = {};
            this.deltas = [];
            this.values = [];
            if (properties)
                for (var keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        };

        /**
         * Series name.
         * @member {string} name
         * @memberof metrics.Series
         * @instance
         */
        Series.prototype.name = "";

        /**
         * Series labels.
         * @member {Object.<string,string>} labels
         * @memberof metrics.Series
         * @instance
         */
        Series.prototype.labels = $util.emptyObject;

        /**
         * Series startTimeUnixNano.
         * @member {number|Long} startTimeUnixNano
         * @memberof metrics.Series
         * @instance
         */
        Series.prototype.startTimeUnixNano = $util.Long ? $util.Long.fromBits(0,0,true) : 0;

        /**
         * Series intervalMs.
         * @member {number} intervalMs
         * @memberof metrics.Series
         * @instance
         */
        Series.prototype.intervalMs = 0;

        /**
         * Series deltas.
         * @member {Array.<number>} deltas
         * @memberof metrics.Series
         * @instance
         */
        Series.prototype.deltas = $util.emptyArray;

        /**
         * Series values.
         * @member {Array.<number>} values
         * @memberof metrics.Series
         * @instance
         */
        Series.prototype.values = $util.emptyArray;

        /**
         * Series count.
         * @member {number|Long} count
         * @memberof metrics.Series
         * @instance
         */
        Series.prototype.count = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * Creates a new Series instance using the specified properties.
         * @function create
         * @memberof metrics.Series
         * @static
         * @param {metrics.Series.$Properties=} [properties] Properties to set
         * @returns {metrics.Series} Series instance
         * @type {{
         *   (properties: metrics.Series.$Shape): metrics.Series & metrics.Series.$Shape;
         *   (properties?: metrics.Series.$Properties): metrics.Series;
         * }}
         */
        Series.create = function(properties) {
            return new Series(properties);
        };

        /**
         * Encodes the specified Series message. Does not implicitly {@link metrics.Series.verify|verify} messages.
         * @function encode
         * @memberof metrics.Series
         * @static
         * @param {metrics.Series.$Properties} message Series message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        Series.encode = function (message, writer, _depth) {
            if (!writer)
                writer = $Writer.create();
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $util.recursionLimit)
                throw $Error("max depth exceeded");
            if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
            if (message.labels != null && $Object.hasOwnProperty.call(message, "labels"))
                for (var keys = $Object.keys(message.labels), i = 0; i < keys.length; ++i)
                    writer.uint32(/* id 2, wireType 2 =*/18).fork().uint32(/* id 1, wireType 2 =*/10).string(keys[i]).uint32(/* id 2, wireType 2 =*/18).string(message.labels[keys[i]]).ldelim();
            if (message.startTimeUnixNano != null && $Object.hasOwnProperty.call(message, "startTimeUnixNano") && (typeof message.startTimeUnixNano === "object" ? message.startTimeUnixNano.low || message.startTimeUnixNano.high : message.startTimeUnixNano !== 0))
                writer.uint32(/* id 3, wireType 1 =*/25).fixed64(message.startTimeUnixNano);
            if (message.intervalMs != null && $Object.hasOwnProperty.call(message, "intervalMs") && message.intervalMs !== 0)
                writer.uint32(/* id 4, wireType 0 =*/32).uint32(message.intervalMs);
            if (message.deltas != null && message.deltas.length)
                writer.uint32(/* id 5, wireType 2 =*/42).sint32s(message.deltas);
            if (message.values != null && message.values.length)
                writer.uint32(/* id 6, wireType 2 =*/50).doubles(message.values);
            if (message.count != null && $Object.hasOwnProperty.call(message, "count") && (typeof message.count === "object" ? message.count.low || message.count.high : message.count !== 0))
                writer.uint32(/* id 7, wireType 0 =*/56).int64(message.count);
            if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                for (var i = 0; i < message.$unknowns.length; ++i)
                    writer.raw(message.$unknowns[i]);
            return writer;
        };

        /**
         * Encodes the specified Series message, length delimited. Does not implicitly {@link metrics.Series.verify|verify} messages.
         * @function encodeDelimited
         * @memberof metrics.Series
         * @static
         * @param {metrics.Series.$Properties} message Series message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        Series.encodeDelimited = function(message, writer) {
            return this.encode(message, (writer || $Writer.create()).fork()).ldelim();
        };

        /**
         * Decodes a Series message from the specified reader or buffer.
         * @function decode
         * @memberof metrics.Series
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {metrics.Series & metrics.Series.$Shape} Series
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        Series.decode = function (reader, length, _end, _depth, _target) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $Reader.recursionLimit)
                throw $Error("max depth exceeded");
            var end, message, key, value;
            if (length === $undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw $RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = _target || new $root.metrics.Series();
            while (reader.pos < end) {
                var start = reader.pos;
                var tag = reader.tag();
                if (tag === _end) {
                    _end = $undefined;
                    break;
                }
                var wireType = tag & 7;
                switch (tag >>>= 3) {
                case 1: {
                        if (wireType !== 2)
                            break;
                        if ((value = reader.stringVerify()).length)
                            message.name = value;
                        else
                            delete message.name;
                        continue;
                    }
                case 2: {
                        if (wireType !== 2)
                            break;
                        if (message.labels === $util.emptyObject)
                            message.labels = {};
                        var end2 = reader.size() + reader.pos;
                        if (end2 > reader.len)
                            throw $RangeError("index out of range");
                        reader.len = end2;
                        key = "";
                        value = "";
                        while (reader.pos < end2) {
                            var tag2 = reader.tag();
                            wireType = tag2 & 7;
                            switch (tag2 >>>= 3) {
                            case 1:
                                if (wireType !== 2)
                                    break;
                                key = reader.stringVerify();
                                continue;
                            case 2:
                                if (wireType !== 2)
                                    break;
                                value = reader.stringVerify();
                                continue;
                            }
                            reader.skipType(wireType, _depth, tag2);
                        }
                        if (reader.pos !== end2)
                            throw $RangeError("index out of range");
                        reader.len = end;
                        if (key === "__proto__")
                            $util.makeProp(message.labels, key);
                        message.labels[key] = value;
                        continue;
                    }
                case 3: {
                        if (wireType !== 1)
                            break;
                        if (typeof (value = reader.fixed64()) === "object" ? value.low || value.high : value !== 0)
                            message.startTimeUnixNano = value;
                        else
                            delete message.startTimeUnixNano;
                        continue;
                    }
                case 4: {
                        if (wireType !== 0)
                            break;
                        if (value = reader.uint32())
                            message.intervalMs = value;
                        else
                            delete message.intervalMs;
                        continue;
                    }
                case 5: {
                        if (wireType === 2) {
                            if (!(message.deltas && message.deltas.length))
                                message.deltas = [];
                            reader.sint32s(message.deltas);
                            continue;
                        }
                        if (wireType !== 0)
                            break;
                        if (!(message.deltas && message.deltas.length))
                            message.deltas = [];
                        message.deltas.push(reader.sint32());
                        continue;
                    }
                case 6: {
                        if (wireType === 2) {
                            if (!(message.values && message.values.length))
                                message.values = [];
                            reader.doubles(message.values);
                            continue;
                        }
                        if (wireType !== 1)
                            break;
                        if (!(message.values && message.values.length))
                            message.values = [];
                        message.values.push(reader.double());
                        continue;
                    }
                case 7: {
                        if (wireType !== 0)
                            break;
                        if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                            message.count = value;
                        else
                            delete message.count;
                        continue;
                    }
                }
                reader.skipType(wireType, _depth, tag);
                if (!reader.discardUnknown) {
                    $util.makeProp(message, "$unknowns", false);
                    (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                }
            }
            if (length !== $undefined) {
                if (reader.pos !== end)
                    throw $RangeError("index out of range");
                reader.len = length;
            }
            if (_end !== $undefined)
                throw $Error("missing end group");
            return message;
        };

        /**
         * Decodes a Series message from the specified reader or buffer, length delimited.
         * @function decodeDelimited
         * @memberof metrics.Series
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @returns {metrics.Series & metrics.Series.$Shape} Series
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        Series.decodeDelimited = function(reader) {
            if (!(reader instanceof $Reader))
                reader = new $Reader(reader);
            return this.decode(reader, reader.size());
        };

        /**
         * Verifies a Series message.
         * @function verify
         * @memberof metrics.Series
         * @static
         * @param {Object.<string,*>} message Plain object to verify
         * @returns {string|null} `null` if valid, otherwise the reason why it is not
         */
        Series.verify = function (message, _depth) {
            if (typeof message !== "object" || message === null)
                return "object expected";
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $util.recursionLimit)
                return "max depth exceeded";
            if (message.name != null && $Object.hasOwnProperty.call(message, "name"))
                if (!$util.isString(message.name))
                    return "name: string expected";
            if (message.labels != null && $Object.hasOwnProperty.call(message, "labels")) {
                if (!$util.isObject(message.labels))
                    return "labels: object expected";
                var key = $Object.keys(message.labels);
                for (var i = 0; i < key.length; ++i)
                    if (!$util.isString(message.labels[key[i]]))
                        return "labels: string{k:string} expected";
            }
            if (message.startTimeUnixNano != null && $Object.hasOwnProperty.call(message, "startTimeUnixNano"))
                if (!$util.isInteger(message.startTimeUnixNano) && !(message.startTimeUnixNano && $util.isInteger(message.startTimeUnixNano.low) && $util.isInteger(message.startTimeUnixNano.high)))
                    return "startTimeUnixNano: integer|Long expected";
            if (message.intervalMs != null && $Object.hasOwnProperty.call(message, "intervalMs"))
                if (!$util.isInteger(message.intervalMs))
                    return "intervalMs: integer expected";
            if (message.deltas != null && $Object.hasOwnProperty.call(message, "deltas")) {
                if (!$Array.isArray(message.deltas))
                    return "deltas: array expected";
                for (var i = 0; i < message.deltas.length; ++i)
                    if (!$util.isInteger(message.deltas[i]))
                        return "deltas: integer[] expected";
            }
            if (message.values != null && $Object.hasOwnProperty.call(message, "values")) {
                if (!$Array.isArray(message.values))
                    return "values: array expected";
                for (var i = 0; i < message.values.length; ++i)
                    if (typeof message.values[i] !== "number")
                        return "values: number[] expected";
            }
            if (message.count != null && $Object.hasOwnProperty.call(message, "count"))
                if (!$util.isInteger(message.count) && !(message.count && $util.isInteger(message.count.low) && $util.isInteger(message.count.high)))
                    return "count: integer|Long expected";
            return null;
        };

        /**
         * Creates a Series message from a plain object. Also converts values to their respective internal types.
         * @function fromObject
         * @memberof metrics.Series
         * @static
         * @param {Object.<string,*>} object Plain object
         * @returns {metrics.Series} Series
         */
        Series.fromObject = function (object, _depth) {
            if (object instanceof $root.metrics.Series)
                return object;
            if (!$util.isObject(object))
                throw $TypeError(".metrics.Series: object expected");
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $util.recursionLimit)
                throw $Error("max depth exceeded");
            var message = new $root.metrics.Series();
            if (object.name != null)
                if (typeof object.name !== "string" || object.name.length)
                    message.name = $String(object.name);
            if (object.labels) {
                if (!$util.isObject(object.labels))
                    throw $TypeError(".metrics.Series.labels: object expected");
                message.labels = {};
                for (var keys = $Object.keys(object.labels), i = 0; i < keys.length; ++i) {
                    if (keys[i] === "__proto__")
                        $util.makeProp(message.labels, keys[i]);
                    message.labels[keys[i]] = $String(object.labels[keys[i]]);
                }
            }
            if (object.startTimeUnixNano != null)
                if (typeof object.startTimeUnixNano === "object" ? object.startTimeUnixNano.low || object.startTimeUnixNano.high : $Number(object.startTimeUnixNano) !== 0)
                    if ($util.Long)
                        message.startTimeUnixNano = $util.Long.fromValue(object.startTimeUnixNano, true);
                    else if (typeof object.startTimeUnixNano === "string")
                        message.startTimeUnixNano = $parseInt(object.startTimeUnixNano, 10);
                    else if (typeof object.startTimeUnixNano === "number")
                        message.startTimeUnixNano = object.startTimeUnixNano;
                    else if (typeof object.startTimeUnixNano === "object")
                        message.startTimeUnixNano = new $util.LongBits(object.startTimeUnixNano.low >>> 0, object.startTimeUnixNano.high >>> 0).toNumber(true);
            if (object.intervalMs != null)
                if ($Number(object.intervalMs) !== 0)
                    message.intervalMs = object.intervalMs >>> 0;
            if (object.deltas) {
                if (!$Array.isArray(object.deltas))
                    throw $TypeError(".metrics.Series.deltas: array expected");
                message.deltas = $Array(object.deltas.length);
                for (var i = 0; i < object.deltas.length; ++i)
                    message.deltas[i] = object.deltas[i] | 0;
            }
            if (object.values) {
                if (!$Array.isArray(object.values))
                    throw $TypeError(".metrics.Series.values: array expected");
                message.values = $Array(object.values.length);
                for (var i = 0; i < object.values.length; ++i)
                    message.values[i] = $Number(object.values[i]);
            }
            if (object.count != null)
                if (typeof object.count === "object" ? object.count.low || object.count.high : $Number(object.count) !== 0)
                    if ($util.Long)
                        message.count = $util.Long.fromValue(object.count, false);
                    else if (typeof object.count === "string")
                        message.count = $parseInt(object.count, 10);
                    else if (typeof object.count === "number")
                        message.count = object.count;
                    else if (typeof object.count === "object")
                        message.count = new $util.LongBits(object.count.low >>> 0, object.count.high >>> 0).toNumber();
            return message;
        };

        /**
         * Creates a plain object from a Series message. Also converts values to other types if specified.
         * @function toObject
         * @memberof metrics.Series
         * @static
         * @param {metrics.Series} message Series
         * @param {$protobuf.IConversionOptions} [options] Conversion options
         * @returns {Object.<string,*>} Plain object
         */
        Series.toObject = function (message, options, _depth) {
            if (!options)
                options = {};
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $util.recursionLimit)
                throw $Error("max depth exceeded");
            var object = {};
            if (options.arrays || options.defaults) {
                object.deltas = [];
                object.values = [];
            }
            if (options.objects || options.defaults)
                object.labels = {};
            if (options.defaults) {
                object.name = "";
                if ($util.Long) {
                    var long = new $util.Long(0, 0, true);
                    object.startTimeUnixNano = options.longs === $String ? long.toString() : options.longs === $Number ? long.toNumber() : typeof $BigInt !== "undefined" && options.longs === $BigInt ? long.toBigInt() : long;
                } else
                    object.startTimeUnixNano = options.longs === $String ? "0" : typeof $BigInt !== "undefined" && options.longs === $BigInt ? $BigInt("0") : 0;
                object.intervalMs = 0;
                if ($util.Long) {
                    var long = new $util.Long(0, 0, false);
                    object.count = options.longs === $String ? long.toString() : options.longs === $Number ? long.toNumber() : typeof $BigInt !== "undefined" && options.longs === $BigInt ? long.toBigInt() : long;
                } else
                    object.count = options.longs === $String ? "0" : typeof $BigInt !== "undefined" && options.longs === $BigInt ? $BigInt("0") : 0;
            }
            if (message.name != null && $Object.hasOwnProperty.call(message, "name"))
                object.name = message.name;
            var keys2;
            if (message.labels && (keys2 = $Object.keys(message.labels)).length) {
                object.labels = {};
                for (var j = 0; j < keys2.length; ++j) {
                    if (keys2[j] === "__proto__")
                        $util.makeProp(object.labels, keys2[j]);
                    object.labels[keys2[j]] = message.labels[keys2[j]];
                }
            }
            if (message.startTimeUnixNano != null && $Object.hasOwnProperty.call(message, "startTimeUnixNano"))
                if (typeof $BigInt !== "undefined" && options.longs === $BigInt)
                    object.startTimeUnixNano = typeof message.startTimeUnixNano === "number" ? $BigInt(message.startTimeUnixNano) : $util.Long.fromBits(message.startTimeUnixNano.low >>> 0, message.startTimeUnixNano.high >>> 0, true).toBigInt();
                else if (typeof message.startTimeUnixNano === "number")
                    object.startTimeUnixNano = options.longs === $String ? $String(message.startTimeUnixNano) : message.startTimeUnixNano;
                else
                    object.startTimeUnixNano = options.longs === $String ? $util.Long.prototype.toString.call(message.startTimeUnixNano) : options.longs === $Number ? new $util.LongBits(message.startTimeUnixNano.low >>> 0, message.startTimeUnixNano.high >>> 0).toNumber(true) : message.startTimeUnixNano;
            if (message.intervalMs != null && $Object.hasOwnProperty.call(message, "intervalMs"))
                object.intervalMs = message.intervalMs;
            if (message.deltas && message.deltas.length) {
                object.deltas = $Array(message.deltas.length);
                for (var j = 0; j < message.deltas.length; ++j)
                    object.deltas[j] = message.deltas[j];
            }
            if (message.values && message.values.length) {
                object.values = $Array(message.values.length);
                for (var j = 0; j < message.values.length; ++j)
                    object.values[j] = options.json && !$isFinite(message.values[j]) ? $String(message.values[j]) : message.values[j];
            }
            if (message.count != null && $Object.hasOwnProperty.call(message, "count"))
                if (typeof $BigInt !== "undefined" && options.longs === $BigInt)
                    object.count = typeof message.count === "number" ? $BigInt(message.count) : $util.Long.fromBits(message.count.low >>> 0, message.count.high >>> 0, false).toBigInt();
                else if (typeof message.count === "number")
                    object.count = options.longs === $String ? $String(message.count) : message.count;
                else
                    object.count = options.longs === $String ? $util.Long.prototype.toString.call(message.count) : options.longs === $Number ? new $util.LongBits(message.count.low >>> 0, message.count.high >>> 0).toNumber() : message.count;
            return object;
        };

        /**
         * Converts this Series to JSON.
         * @function toJSON
         * @memberof metrics.Series
         * @instance
         * @returns {Object.<string,*>} JSON object
         */
        Series.prototype.toJSON = function() {
            return Series.toObject(this, $protobuf.util.toJSONOptions);
        };

        /**
         * Gets the type url for Series
         * @function getTypeUrl
         * @memberof metrics.Series
         * @static
         * @param {string} [prefix] Custom type url prefix, defaults to `"type.googleapis.com"`
         * @returns {string} The type url
         */
        Series.getTypeUrl = function(prefix) {
            if (prefix === $undefined)
                prefix = "type.googleapis.com";
            return prefix + "/metrics.Series";
        };

        return Series;
    })();

    return metrics;
})();

module.exports = $root;
