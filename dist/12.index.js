"use strict";exports.id=12;exports.ids=[12];exports.modules={3758:(e,t,n)=>{n.d(t,{s:()=>checkDocument});var s=n(1628);var o=n(6987);const r=5;function checkDocument(e,t){const n=e.safeParse(t);if(n.success)return(0,s.ok)(n.data);const i=n.error.issues.slice(0,r).map(e=>`${(0,o.me)(e.path.filter(e=>typeof e!=="symbol"))}: ${e.message}`);return(0,s.f)((0,s.C)("DOCUMENT_INVALID",i.join("; ")))}},3778:(e,t,n)=>{n.d(t,{Bl:()=>collectiveRank,VJ:()=>d,di:()=>a,ov:()=>freePort,tw:()=>i});var s=n(3999);var o=n(9961);var r=n(6902);const i=64*1024*1024;const a=5;const d=30;const c="import socket, sys\ns = socket.socket()\ns.bind((sys.argv[1], 0))\nprint(s.getsockname()[1])";const freePort=e=>(0,s.vU)("python3","-c",c,e);const collectiveEnv=(e,t)=>({...(0,r.w1)(e,t),NCCL_DEBUG:"INFO"});function collectiveRank(e,t,n,r){const i=e.container;const a=["--rm","--pull","never","--network","host","--gpus",String(i.gpus)];if(i.shmSize)a.push("--shm-size",i.shmSize);for(const e of i.devices)a.push("--device",e);for(const e of i.volumes)a.push("--volume",e);for(const[n,s]of Object.entries(collectiveEnv(e,t)))a.push("--env",`${n}=${s}`);return(0,s.vU)("timeout","--kill-after=10",String((0,o.ti)(r.timeout)+d),"docker","run",...a,...i.extraArgs,"--entrypoint","python3",n,"-c",o.Jy,JSON.stringify(r))}},7655:(e,t,n)=>{n.d(t,{h2:()=>fitModel,iF:()=>fitTextLines});var s=n(9760);const o=16;const cdiv=(e,t)=>Math.ceil(e/t);function attentionPerToken(e,t,n){const s=e.attention;if(!s)return 0;const o=Math.max(1,Math.floor(s.kvHeads/t));return o*(s.headDim+s.headDimV)*n}function linearState(e,t){const n=e.linear;if(!n)return 0;const s=(2*n.keyHeads*n.keyHeadDim+n.valueHeads*n.valueHeadDim)/t*(n.convKernel-1)*e.dtypeBytes;const o=n.valueHeads/t*n.valueHeadDim*n.keyHeadDim*(e.ssmDtypeBytes??e.dtypeBytes);return s+o}function mambaState(e,t){const n=e.mamba;if(!n)return 0;const s=(n.heads*n.headDim+2*n.groups*n.stateSize)/t*(n.convKernel-1)*e.dtypeBytes;const o=n.heads/t*n.headDim*n.stateSize*(e.ssmDtypeBytes??e.dtypeBytes);return s+o}function stageLayers(e,t){const n=(0,s.AK)(e.layers.length,t);let o=0;return n.map(t=>{const n=e.layers.slice(o,o+t);o+=t;return[...n]})}function sequenceCache(e,t){const n=attentionPerToken(e,t.tp,t.kvBytes);const s=e.mla?(e.mla.kvLoraRank+e.mla.ropeHeadDim)*t.kvBytes:0;const o=linearState(e,t.tp);const r=mambaState(e,t.tp);const i=stageLayers(e,t.pp).map(e=>{const count=t=>e.filter(e=>e===t).length;const t={};for(const n of e)t[n]=(t[n]??0)+1;return{perTokenBytes:count("full")*n+count("mla")*s,slidingPerTokenBytes:n,slidingLayers:count("sliding"),stateBytes:count("linear")*o+count("mamba")*r,layerCounts:t}});return i.reduce((e,t)=>t.perTokenBytes+t.stateBytes>e.perTokenBytes+e.stateBytes?t:e)}function sequenceBytes(e,t,n,s){const r=cdiv(t,o)*o;const i=s===undefined?0:(cdiv(Math.min(s-1+n,t),o)+1)*o;return r*e.perTokenBytes+e.slidingLayers*i*e.slidingPerTokenBytes+e.stateBytes}function longestFitting(e,t,n,s,r,i){const fits=o=>n*sequenceBytes(e,o,s,r)<=t;if(!fits(o))return 0;let a=o;let d=Math.max(i,o);if(fits(d))return d;while(d-a>1){const e=Math.floor((a+d)/2);if(fits(e))a=e;else d=e}return a>=1024?a-a%1024:a-a%o}var r=n(8156);const i=2*s.j9;const a=5.6*s.j9;const d=4*s.j9;function serverDefaults(e,t){if(e||t===undefined||t<70*s.j9)return{maxNumSeqs:256,maxNumBatchedTokens:2048};return t>=160*s.j9?{maxNumSeqs:1024,maxNumBatchedTokens:16384}:{maxNumSeqs:1024,maxNumBatchedTokens:8192}}function footprintOf(e,t,n){const o=e.weights?(0,s.$N)(e.weights,t.layers.length,e.tp,e.pp,e.args.mtp):undefined;if(!o)return"the weights’ sizes (no weights listing, no safetensors headers and no index total_size were readable)";const a=serverDefaults(n?.unified??true,n?.unified?undefined:n?.totalBytes);const d=e.args.maxNumSeqs??a.maxNumSeqs;const c=e.args.maxNumBatchedTokens??a.maxNumBatchedTokens;const l=e.args.maxModelLen??t.maxPositionEmbeddings;if(l===undefined)return"max-model-len (neither --max-model-len in vllm.args nor max_position_embeddings in config.json)";const u=(0,r.Bv)(e.args.kvCacheDtype,t.dtypeBytes);const f=sequenceCache(t,{tp:e.tp,pp:e.pp,kvBytes:u,maxNumBatchedTokens:c});const m=sequenceBytes(f,l,c,t.slidingWindow);return{model:t.architecture,weightsBytes:o.bytes,weightsHow:o.how,maxModelLen:l,maxModelLenFrom:e.args.maxModelLen!==undefined?"--max-model-len":"config.json's max_position_embeddings (vLLM's default)",maxNumSeqs:d,maxNumBatchedTokens:c,kvDtypeBytes:u,kvOneSequenceBytes:m,kvAllSequencesBytes:m*d,...e.args.kvCacheMemoryBytes!==undefined&&{kvCacheMemoryBytes:e.args.kvCacheMemoryBytes},activationBytes:i+d*(t.vocabSize??0)*4,cache:f}}function fitModel(e){if(!e.model.ok)return{computed:false,missing:[e.model.problem.message]};const t=e.model.value.shape;const n=e.nodes[0];const s=footprintOf(e,t,n);if(typeof s==="string")return{computed:false,missing:[s]};const o=e.nodes.map(n=>nodeFit(s,n,e,t));return{computed:true,footprint:s,nodes:o,sources:[e.model.value.source,e.weights?.source??""].filter(e=>e!=="")}}const c=s.Kk;const floor2=e=>Math.floor(e*100)/100;function hostReserve(e){if(!e.unified)return{bytes:0,line:""};const t=e.hostUsedBytes??d;const n=e.hostUsedBytes!==undefined?`${c(t)} the host uses now (MemTotal − MemAvailable)`:`${c(t)} for the OS and services (an allowance: nothing measured)`;return{bytes:t+a,line:`host reserve ${c(t+a)} = ${n} + ${c(a)} for vLLM's host-side processes`}}function nodeFit(e,t,n,s){const o=n.args.gpuMemoryUtilization??.9;const r=hostReserve(t);const a=e.kvCacheMemoryBytes!==undefined;const d=a?e.weightsBytes+e.kvCacheMemoryBytes+e.activationBytes:Math.floor(o*t.totalBytes);const l=a?e.kvCacheMemoryBytes:d-e.weightsBytes-e.activationBytes;const u=e.kvOneSequenceBytes;const f=l>0?Math.floor(l/u):0;const m=[`weights ${c(e.weightsBytes)} per GPU (${e.weightsHow})`,`KV cache ${c(u)} per sequence of ${e.maxModelLen} tokens (${e.maxModelLenFrom}; ${describeCache(e)}); × max-num-seqs ${e.maxNumSeqs} = ${c(e.kvAllSequencesBytes)}`,`activation/graph reserve ${c(e.activationBytes)} (an allowance of ${c(i)} + the sampler's logits)`,a?`vLLM claims ${c(d)} = weights + --kv-cache-memory-bytes ${c(e.kvCacheMemoryBytes)} + reserve`:`vLLM claims ${c(d)} = gpu-memory-utilization ${o} × ${c(t.totalBytes)}; the KV cache gets ${c(Math.max(0,l))} of it`,...r.line?[r.line]:[],t.unified?`${c(d)} + ${c(r.bytes)} = ${c(d+r.bytes)} of ${c(t.totalBytes)} unified memory (${t.source})`:`${c(d)} of ${c(t.totalBytes)} on each GPU (${t.source})`,`the KV cache holds ${f} sequence${f===1?"":"s"} of ${e.maxModelLen} tokens at once`];const p=verdictFindings({fp:e,n:t,input:n,shape:s,claim:d,kvBudget:l,host:r.bytes,sequences:f,lines:m,util:o});return{node:t.node,memory:t,fits:!p.some(e=>e.severity==="error"),claimBytes:d,kvBudgetBytes:l,hostReserveBytes:r.bytes,sequencesAtMaxLen:f,lines:m,findings:p}}function describeCache(e){const t=e.cache.layerCounts;const n=[t.full?`${t.full} full-attention layers`:"",t.sliding?`${t.sliding} sliding-window layers`:"",t.mla?`${t.mla} MLA layers`:"",t.linear?`${t.linear} linear-attention layers (fixed state)`:"",t.mamba?`${t.mamba} Mamba layers (fixed state)`:""].filter(e=>e!=="");return`${n.join(", ")}; KV dtype ${e.kvDtypeBytes} byte${e.kvDtypeBytes===1?"":"s"}`}const evidenceOf=e=>Object.fromEntries(e.lines.map((e,t)=>[`${t+1}`,e]));function tpThatFits(e){const t=e.input.nodes.reduce((e,t)=>e+t.gpus,0);for(let n=e.input.tp+1;n*e.input.pp<=t;n++){const t=e.input.weights?(0,s.$N)(e.input.weights,e.shape.layers.length,n,e.input.pp,e.input.args.mtp):undefined;if(t&&t.bytes+e.fp.activationBytes+e.fp.kvOneSequenceBytes/(n/e.input.tp)<e.claim)return n}return undefined}function verdictFindings(e){const{fp:t,n:n}=e;const s=[];const o=n.unified?n.totalBytes-e.host:n.totalBytes;if(e.claim>o){const r=floor2(o/n.totalBytes);const i=Math.floor(o-t.weightsBytes-t.activationBytes);s.push({code:"MODEL_DOES_NOT_FIT",severity:"error",node:n.node,message:n.unified?`${n.node}: vLLM would claim ${c(e.claim)} of its ${c(n.totalBytes)} unified memory and leave the host ${c(n.totalBytes-e.claim)}, less than the ${c(e.host)} it needs: the host wedges or resets instead of vLLM failing cleanly.`:`${n.node}: vLLM would claim ${c(e.claim)} on a GPU of ${c(n.totalBytes)}.`,evidence:evidenceOf(e),fix:i>t.kvOneSequenceBytes?`Size the KV cache in bytes: vllm.kvCacheMemoryBytes: ${i} (${c(i)}), or lower --gpu-memory-utilization in vllm.args to ${r}.`:`The weights leave no room for a KV cache on ${n.node}: spread the model over more GPUs (tensorParallelSize/pipelineParallelSize) or serve a smaller quantisation.`})}const r=Math.min(e.kvBudget,o-t.weightsBytes-t.activationBytes);if(e.kvBudget<t.kvOneSequenceBytes)s.push(shortKv(e,r));else if(e.sequences<t.maxNumSeqs&&s.length===0){s.push({code:"KV_CACHE_CONCURRENCY",severity:"info",node:n.node,message:`${n.node}: the KV cache holds ${e.sequences} sequences of ${t.maxModelLen} tokens at once, fewer than max-num-seqs ${t.maxNumSeqs}: longer requests queue (vLLM preempts), shorter ones share.`,evidence:evidenceOf(e),fix:`Nothing to do if ${e.sequences} long requests at once are enough; else lower --max-model-len or use --kv-cache-dtype fp8 in vllm.args.`})}return s}function shortKv(e,t){const{fp:n,n:s}=e;const o=t>0?longestFitting(n.cache,t,1,n.maxNumBatchedTokens,e.shape.slidingWindow,n.maxModelLen):0;const r=tpThatFits(e);const i=[o>0?`lower --max-model-len in vllm.args to ${o} (the longest that fits one sequence)`:"",r!==undefined?`raise tensorParallelSize to ${r}`:"",t<=0?"serve a smaller quantisation: the weights alone leave no room":""].filter(e=>e!=="");return{code:"MODEL_DOES_NOT_FIT",severity:"error",node:s.node,message:`${s.node}: one sequence of ${n.maxModelLen} tokens needs ${c(n.kvOneSequenceBytes)} of KV cache, and ${e.kvBudget>0?`only ${c(e.kvBudget)} is left for it`:"nothing is left for it"} after ${c(n.weightsBytes)} of weights: vLLM refuses to start ("larger than the available KV cache memory").`,evidence:evidenceOf(e),fix:`${i.join("; or ")}.`}}function fitTextLines(e){if(!e.computed)return[`Fit before launch: not computed, missing ${e.missing.join("; ")}`];const t=e.footprint;const n=[`Fit before launch (${t.model}; ${e.sources.join("; ")}):`,`  per GPU: weights ${c(t.weightsBytes)}, KV cache ${c(t.kvOneSequenceBytes)} per sequence of ${t.maxModelLen} tokens (× max-num-seqs ${t.maxNumSeqs} = ${c(t.kvAllSequencesBytes)}), activation/graph reserve ${c(t.activationBytes)}`];if(e.nodes.length===0)n.push("  verdict: not given, nothing says what the nodes have (set fit.nodeMemory, or run preflight, which reads each node)");for(const t of e.nodes){n.push(`  ${t.node}: ${t.fits?"fits":"DOES NOT FIT"}`);for(const e of t.lines)n.push(`    ${e}`)}return n}},7120:(e,t,n)=>{n.d(t,{JQ:()=>readLocalModel});var s=n(3024);var o=n.n(s);var r=n(8161);var i=n.n(r);var a=n(6760);var d=n.n(a);var c=n(9760);const l=1e8;const u=/^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;const f=/^[0-9a-f]{40}$/;function hubCacheDir(e){if(e["HF_HUB_CACHE"])return e["HF_HUB_CACHE"];if(e["HF_HOME"])return(0,a.join)(e["HF_HOME"],"hub");return(0,a.join)(e["XDG_CACHE_HOME"]??(0,a.join)((0,r.homedir)(),".cache"),"huggingface","hub")}function localModelDir(e,t,n){const o=e.model?.source;if(o?.runner)return{dir:(0,a.resolve)((0,a.dirname)(t),o.runner.dir)};if(o?.nodes)return{missing:`config.json: model.source.nodes keeps the files on the nodes only (${e.model?.path}); the deploy's fit stage reads it from the head`};const r=o?.hub?.repo??(u.test(e.vllm.model)?e.vllm.model:undefined);if(!r)return{missing:`config.json: vllm.model ${e.vllm.model} is a path inside the container, not readable on the runner; with a model: section the deploy's fit stage reads the head's copy`};const i=o?.hub?.revision??"main";const d=hubCacheDir(n);const c=(0,a.join)(d,`models--${r.replace("/","--")}`);const l=(0,a.join)(c,"refs",i);const m=f.test(i)?i:(0,s.existsSync)(l)?(0,s.readFileSync)(l,"utf8").trim():undefined;const p=m?(0,a.join)(c,"snapshots",m):undefined;if(!p||!(0,s.existsSync)((0,a.join)(p,"config.json")))return{missing:`config.json of ${r}@${i}: not in the runner's hub cache (${c}); download it there (hf download ${r} config.json model.safetensors.index.json) or give the model a model: section, whose copy on the head the deploy's fit stage reads`};return{dir:p}}function readHeader(e){const t=(0,s.openSync)(e,"r");try{const e=Buffer.alloc(8);if((0,s.readSync)(t,e,0,8,0)!==8)return undefined;const n=Number(e.readBigUInt64LE(0));if(n<=0||n>l)return undefined;const o=Buffer.alloc(n);return(0,s.readSync)(t,o,0,n,8)===n?o.toString("utf8"):undefined}finally{(0,s.closeSync)(t)}}function weightsIn(e){const t=(0,s.readdirSync)(e).filter(e=>e.endsWith(".safetensors"));if(t.length>0){const n=[];let o=true;let r=0;for(const i of t){r+=(0,s.statSync)((0,a.join)(e,i)).size;const t=o?readHeader((0,a.join)(e,i)):undefined;const d=t===undefined?undefined:(0,c.sV)(t,i);if(d?.ok)n.push(...d.value);else o=false}return{fileBytes:r,...o&&{tensors:n},source:`${t.length} safetensors files in ${e}`}}const n=(0,a.join)(e,"model.safetensors.index.json");if(!(0,s.existsSync)(n))return undefined;const o=JSON.parse((0,s.readFileSync)(n,"utf8")).metadata?.total_size;return typeof o==="number"?{fileBytes:o,source:`${n}'s metadata.total_size`}:undefined}function readLocalModel(e,t,n){const o=localModelDir(e,t,n);if(!o.dir)return{missing:o.missing??"config.json"};const r=(0,a.join)(o.dir,"config.json");if(!(0,s.existsSync)(r))return{missing:`config.json: not in ${o.dir}`};try{const e=weightsIn(o.dir);return{config:{text:(0,s.readFileSync)(r,"utf8"),path:r},...e&&{weights:e}}}catch(e){return{missing:`the model's files in ${o.dir}: ${e.message}`}}}},7198:(e,t,n)=>{n.d(t,{Wh:()=>fitFindings,uy:()=>fitOfManifest,E:()=>kvBytesFlagFinding,Nh:()=>kvBytesFlagFindings,Ii:()=>nodeMemoryOfFacts,ut:()=>nodeMemoryOfManifest});var s=n(1628);var o=n(8275);var r=n(1280);var i=n(7655);const a={float32:4,float:4,float16:2,half:2,bfloat16:2,float8_e4m3fn:1,float8_e5m2:1};const isObject=e=>typeof e==="object"&&e!==null&&!Array.isArray(e);const num=(e,t)=>{const n=e[t];return typeof n==="number"&&Number.isFinite(n)&&n>=0?n:undefined};const unreadable=(e,t)=>({code:"MODEL_CONFIG_UNREADABLE",message:`${e}: ${t}`,evidence:{"config.json":e},fix:`Check ${e}: it must be the model's Hugging Face config.json (the file vLLM reads).`});const textConfigOf=e=>isObject(e["text_config"])?{...e,...e["text_config"]}:e;const d={full_attention:"full",attention:"full",sliding_attention:"sliding",linear_attention:"linear",mamba:"mamba"};const c={M:"mamba","*":"full","-":"none",E:"none"};function layerKinds(e,t,n){const o=e["layer_types"];if(Array.isArray(o)){const e=o.map(e=>typeof e==="string"?d[e]:undefined);const r=o.find((t,n)=>e[n]===undefined);if(r!==undefined)return(0,s.f)(unreadable(n,`layer_types holds ${JSON.stringify(r)}, a layer kind the fit does not know`));return(0,s.ok)(e.slice(0,t))}const r=e["hybrid_override_pattern"];if(typeof r==="string"){const e=[...r].map(e=>c[e]);if(e.some(e=>e===undefined))return(0,s.f)(unreadable(n,`hybrid_override_pattern ${JSON.stringify(r)} holds a layer kind the fit does not know`));return(0,s.ok)(e)}const i=num(e,"full_attention_interval");if(i!==undefined&&i>0&&num(e,"linear_num_value_heads")!==undefined){return(0,s.ok)(Array.from({length:t},(e,t)=>(t+1)%i===0?"full":"linear"))}if(num(e,"kv_lora_rank")!==undefined)return(0,s.ok)(Array.from({length:t},()=>"mla"));const a=num(e,"sliding_window");const l=num(e,"sliding_window_pattern");if(a!==undefined&&e["use_sliding_window"]!==false){if(l!==undefined&&l>0)return(0,s.ok)(Array.from({length:t},(e,t)=>(t+1)%l===0?"full":"sliding"));return(0,s.ok)(Array.from({length:t},()=>"sliding"))}return(0,s.ok)(Array.from({length:t},()=>"full"))}function dtypeOf(e,t){const n=e["torch_dtype"]??e["dtype"];if(n===undefined)return(0,s.ok)({name:"bfloat16 (assumed: config.json names no dtype)",bytes:2});const o=typeof n==="string"?a[n]:undefined;if(o===undefined)return(0,s.f)(unreadable(t,`dtype ${JSON.stringify(n)} is not one the fit knows`));return(0,s.ok)({name:n,bytes:o})}function linearShape(e){const t=num(e,"linear_num_key_heads");const n=num(e,"linear_num_value_heads");const s=num(e,"linear_key_head_dim");const o=num(e,"linear_value_head_dim");const r=num(e,"linear_conv_kernel_dim");if(t===undefined||n===undefined||s===undefined||o===undefined||r===undefined)return undefined;return{keyHeads:t,valueHeads:n,keyHeadDim:s,valueHeadDim:o,convKernel:r}}function mambaShape(e){const t=num(e,"mamba_num_heads");const n=num(e,"mamba_head_dim");const s=num(e,"n_groups");const o=num(e,"ssm_state_size");const r=num(e,"conv_kernel");if(t===undefined||n===undefined||s===undefined||o===undefined||r===undefined)return undefined;return{heads:t,headDim:n,groups:s,stateSize:o,convKernel:r}}function shapesFor(e,t,n,o){const has=e=>t.includes(e);const r={};if(has("full")||has("sliding")){const t=num(e,"num_attention_heads");if(t===undefined||t===0)return(0,s.f)(unreadable(o,"no num_attention_heads"));const i=num(e,"head_dim")??n/t;r.attention={kvHeads:num(e,"num_key_value_heads")??t,headDim:i,headDimV:num(e,"v_head_dim")??i}}if(has("sliding")){const t=num(e,"sliding_window");if(t===undefined)return(0,s.f)(unreadable(o,"sliding-window layers but no sliding_window"));r.slidingWindow=t}if(has("mla")){const t=num(e,"kv_lora_rank");const n=num(e,"qk_rope_head_dim");if(t===undefined||n===undefined)return(0,s.f)(unreadable(o,"MLA layers but no kv_lora_rank / qk_rope_head_dim"));r.mla={kvLoraRank:t,ropeHeadDim:n}}if(has("linear")){const t=linearShape(e);if(!t)return(0,s.f)(unreadable(o,"linear-attention layers but not all of linear_num_key_heads, linear_num_value_heads, linear_key_head_dim, linear_value_head_dim, linear_conv_kernel_dim"));r.linear=t}if(has("mamba")){const t=mambaShape(e);if(!t)return(0,s.f)(unreadable(o,"Mamba layers but not all of mamba_num_heads, mamba_head_dim, n_groups, ssm_state_size, conv_kernel"));r.mamba=t}return(0,s.ok)(r)}function modelShape(e,t){if(!isObject(e))return(0,s.f)(unreadable(t,"not a JSON object"));const n=textConfigOf(e);const o=num(n,"num_hidden_layers");const r=num(n,"hidden_size");if(o===undefined||o===0)return(0,s.f)(unreadable(t,"no num_hidden_layers"));if(r===undefined)return(0,s.f)(unreadable(t,"no hidden_size"));const i=layerKinds(n,o,t);if(!i.ok)return i;const d=dtypeOf(n,t);if(!d.ok)return d;const c=shapesFor(n,i.value,r,t);if(!c.ok)return c;const l=e["architectures"];const u=Array.isArray(l)&&typeof l[0]==="string"?l[0]:String(n["model_type"]??"unknown");const f=n["mamba_ssm_dtype"];const m=num(n,"vocab_size");const p=num(n,"max_position_embeddings");return(0,s.ok)({architecture:u,dtype:d.value.name,dtypeBytes:d.value.bytes,...typeof f==="string"&&a[f]!==undefined&&{ssmDtypeBytes:a[f]},hiddenSize:r,...m!==undefined&&{vocabSize:m},...p!==undefined&&{maxPositionEmbeddings:p},layers:i.value,...c.value})}function parseModelConfig(e,t){let n;try{n=JSON.parse(e)}catch(e){return(0,s.f)(unreadable(t,`not JSON (${e.message})`))}return modelShape(n,t)}var l=n(8156);const u=1024*1024;function nodeMemoryOfManifest(e){const t=e.fit.nodeMemory;if(!t)return[];return e.nodes.filter(e=>e.gpus>0).map(e=>({node:e.name,unified:t.unified,totalBytes:t.bytes,gpus:e.gpus,source:"fit.nodeMemory in the manifest"}))}function nodeMemoryOfFacts(e,t){return t.nodes.flatMap(t=>{const n=e.nodes.find(e=>e.node===t.name&&e.ok);const s=n?.host;const o=n?.gpus[0];if(!n||t.gpus===0)return[];if(s?.unifiedMemory){const e=o?.memoryTotalMiB!==undefined?o.memoryTotalMiB*u:s.memTotalBytes;if(e===undefined)return[];const r=!n.container?.running&&s.memTotalBytes!==undefined&&s.memAvailableBytes!==undefined?s.memTotalBytes-s.memAvailableBytes:undefined;const i=o?.memoryTotalMiB!==undefined?"nvidia-smi memory.total":"/proc/meminfo MemTotal";return[{node:t.name,unified:true,totalBytes:e,gpus:t.gpus,source:i,...r!==undefined&&{hostUsedBytes:r}}]}if(o?.memoryTotalMiB===undefined)return[];return[{node:t.name,unified:false,totalBytes:o.memoryTotalMiB*u,gpus:t.gpus,source:`nvidia-smi memory.total (${o.name??"GPU"})`}]})}function modelOf(e){if(!e.config)return(0,s.f)((0,s.C)("MODEL_FIT_UNKNOWN",e.missing??"config.json"));const t=parseModelConfig(e.config.text,e.config.path);return t.ok?(0,s.ok)({shape:t.value,source:e.config.path}):(0,s.f)((0,s.C)("MODEL_FIT_UNKNOWN",t.problem.message))}function fitOfManifest(e,t,n){const s=(0,l.tm)([...e.vllm.kvCacheMemoryBytes!==undefined?["--kv-cache-memory-bytes",String(e.vllm.kvCacheMemoryBytes)]:[],...e.vllm.args]);return(0,i.h2)({model:modelOf(t),weights:t.weights,args:s,tp:e.vllm.tensorParallelSize,pp:e.vllm.pipelineParallelSize,nodes:n})}function fitFindings(e,t,n={}){if(e.computed)return e.nodes.flatMap(e=>e.findings);if(!n.unknownAsFinding)return[];return[{code:"MODEL_FIT_UNKNOWN",severity:"info",node:null,message:`${t}: the model's footprint cannot be computed, so whether it fits is not checked: missing ${e.missing.join("; ")}.`,evidence:{Missing:e.missing.join("; ")},fix:"Make the missing input readable (see the message), or set vllm.kvCacheMemoryBytes and --max-model-len from a measured start."}]}function kvBytesFlagFinding(e,t,n){if(e.vllm.kvCacheMemoryBytes===undefined)return undefined;const s=(0,o.GJ)(t.version);if(s?.flags.flags.includes("--kv-cache-memory-bytes"))return undefined;const r=o.SK[0].vllm;return{code:"KV_BYTES_FLAG_UNKNOWN",severity:n,node:null,message:s?`vllm.kvCacheMemoryBytes is passed as --kv-cache-memory-bytes, which \`vllm serve\` of vLLM ${t.version} (${t.from}) does not have: it would stop with "unrecognized arguments".`:`vllm.kvCacheMemoryBytes is passed as --kv-cache-memory-bytes, and vLLM ${t.version} (${t.from}) is older than every release whose flags are known here (${r} and later): it cannot be shown to have the flag.`,evidence:{"vLLM release":`${t.version} (${t.from})`,"Flags known from":s?s.vllm:`${r} on`},fix:`Use an image whose vLLM has --kv-cache-memory-bytes (${r} and later do), or remove vllm.kvCacheMemoryBytes and size the KV cache with --gpu-memory-utilization.`}}function kvBytesFlagFindings(e){const t=(0,r.p)(e);const n=t?kvBytesFlagFinding(e,t,"warning"):undefined;return n?[n]:[]}},8156:(e,t,n)=>{n.d(t,{Bv:()=>kvDtypeBytes,tm:()=>serveArgs});function humanReadableInt(e){const t=/^\s*(\d+(?:\.\d+)?)\s*([kmgtKMGT]?)\s*$/.exec(e);if(!t)return undefined;const[,n,s]=t;const o=Number(n);if(!s)return Number.isInteger(o)?o:undefined;const r="kmgt".indexOf(s.toLowerCase())+1;if(s===s.toUpperCase())return Number.isInteger(o)?o*1024**r:undefined;return Math.round(o*1e3**r)}function argValue(e,t){const n=`--${t.slice(2).replaceAll("-","_")}`;let s;e.forEach((o,r)=>{for(const i of[t,n]){if(o===i&&r+1<e.length)s=e[r+1];else if(o.startsWith(`${i}=`))s=o.slice(i.length+1)}});return s}const hasFlag=(e,t)=>e.some(e=>e===t||e.startsWith(`${t}=`));function serveArgs(e){const int=t=>{const n=argValue(e,t);const s=n===undefined?undefined:humanReadableInt(n);return s!==undefined&&s>0?s:undefined};const t=Number(argValue(e,"--gpu-memory-utilization"));const n=argValue(e,"--kv-cache-dtype");const s=argValue(e,"--speculative-config")??"";const o=int("--max-model-len");const r=int("--max-num-seqs");const i=int("--max-num-batched-tokens");const a=int("--kv-cache-memory-bytes");return{...o!==undefined&&{maxModelLen:o},...r!==undefined&&{maxNumSeqs:r},...i!==undefined&&{maxNumBatchedTokens:i},...n!==undefined&&{kvCacheDtype:n},...a!==undefined&&{kvCacheMemoryBytes:a},...Number.isFinite(t)&&t>0&&t<=1&&{gpuMemoryUtilization:t},mtp:/mtp/i.test(s),enforceEager:hasFlag(e,"--enforce-eager")}}function kvDtypeBytes(e,t){const n=(e??"auto").toLowerCase();if(n==="auto")return t;if(n.startsWith("fp8")||n.startsWith("float8")||n==="int8")return 1;if(n==="float32")return 4;if(n.includes("fp4")||n.includes("nvfp4"))return.5;return 2}},9760:(e,t,n)=>{n.d(t,{$N:()=>weightsShare,AK:()=>ppPartitions,Kk:()=>formatGiB,j9:()=>r,sV:()=>parseSafetensorsHeader});var s=n(1628);function parseSafetensorsHeader(e,t){let n;try{n=JSON.parse(e)}catch(e){return(0,s.f)(headerProblem(t,`the header is not JSON (${e.message})`))}if(typeof n!=="object"||n===null)return(0,s.f)(headerProblem(t,"the header is not an object"));const o=[];for(const[e,r]of Object.entries(n)){if(e==="__metadata__")continue;const n=r;const i=n?.data_offsets;if(!Array.isArray(i)||i.length!==2||!Array.isArray(n.shape))return(0,s.f)(headerProblem(t,`tensor ${e} has no shape or data_offsets`));const[a,d]=i;if(typeof a!=="number"||typeof d!=="number"||d<a)return(0,s.f)(headerProblem(t,`tensor ${e} has bad data_offsets`));o.push({name:e,bytes:d-a,dims:n.shape.length})}return(0,s.ok)(o)}const headerProblem=(e,t)=>({code:"MODEL_CONFIG_UNREADABLE",message:`${e}: ${t}`,evidence:{File:e},fix:`Check ${e}: a safetensors file starts with an 8-byte little-endian length and a JSON header.`});function ppPartitions(e,t){const n=Array.from({length:t},()=>Math.floor(e/t));const s=e%t;for(let e=2;e<s+2;e++)n[t-e]=(n[t-e]??0)+1;return n}const o=/(?:^|\.)layers\.(\d+)\./;function stageOf(e,t,n){const s=o.exec(e);if(s)return t(Number(s[1]));if(/(?:^|\.)lm_head\.|(?:^|\.)model\.norm\.|(?:^|\.)language_model\.norm\.|^norm\./.test(e))return n;return 0}const isMtp=e=>/(?:^|\.)mtp\./.test(e);function shareOfTensors(e,t,n,s,o){const r=ppPartitions(t,s);const i=r.map((e,t)=>r.slice(0,t).reduce((e,t)=>e+t,0));const layerStage=e=>{for(let t=s-1;t>=0;t--)if(e>=(i[t]??0))return t;return 0};const a=Array.from({length:s},()=>0);let d=0;for(const t of e){if(isMtp(t.name)&&!o){d+=t.bytes;continue}const e=stageOf(t.name,layerStage,s-1);a[e]=(a[e]??0)+(t.dims>=2?t.bytes/n:t.bytes)}const c=e.reduce((e,t)=>e+t.bytes,0);const l=Math.ceil(a.reduce((e,t)=>Math.max(e,t),0));const u=d>0?`; ${formatGiB(d)} of mtp.* tensors left out (no MTP speculative config)`:"";return{bytes:l,totalBytes:c,how:`${e.length} tensors from the safetensors headers, placed by layer over PP ${s} and split over TP ${n}${u}`}}function weightsShare(e,t,n,s,o){if(e.tensors&&e.tensors.length>0)return shareOfTensors(e.tensors,t,n,s,o);if(e.fileBytes===undefined)return undefined;return{bytes:Math.ceil(e.fileBytes/(n*s)),totalBytes:e.fileBytes,how:`the files' ${formatGiB(e.fileBytes)} split evenly over TP ${n} × PP ${s} (${e.source}; no tensor headers read, so mtp.* and replicated tensors are not told apart)`}}const r=1024**3;const formatGiB=e=>`${(e/r).toFixed(2)} GiB`},568:(e,t,n)=>{n.d(t,{V3:()=>failedFacts,pc:()=>gatherFacts,iN:()=>nodeFactsFromProbe});var s=n(869);var o=n(8725);var r=n(3758);var i=n(1628);var a=n(1642);const unreadable=e=>(0,i.f)((0,i.C)("PROBE_OUTPUT_INVALID",e));function parseProbeOutput(e){let t;try{t=JSON.parse(e.trim().split("\n").pop()??"")}catch{return unreadable(`the facts probe printed no JSON: ${e.slice(-300)}`)}const n=(0,r.s)(a.xt,t);return n.ok?n:unreadable(`the facts probe's output does not fit its schema: ${n.problem.message}`)}var d=n(1588);var c=n(2813);var l=n(9213);function nodeFactsFromProbe(e,t){const n=parseProbeOutput(t);if(!n.ok)return{facts:failedFacts(e,n.problem.message),notes:[]};const{errors:s,container:o,rayNodes:r,rayError:i,rayStatus:a,...d}=n.value;const l={node:e.name,sshHost:e.ssh.host,ok:true,...d,...o&&{container:o}};const u=`ray.nodes() in ${e.name}'s container`;let f;if(e.role==="head"){if(r!==undefined)f={...(0,c.$)(JSON.stringify(r)),source:u};else if(i!==undefined)f={source:u,nodes:[],error:i};else if(d.host?.docker?.ok===false)f={source:u,nodes:[],error:`docker does not work on the head: ${d.host.docker.error??""}`};else if(!o?.running)f={source:u,nodes:[],error:`container ${o?.name??"(none)"} is not running on the head`}}const m=e.role==="head"?a:undefined;return{facts:l,...f&&{ray:f},...m&&{rayStatus:m},notes:s}}const failedFacts=(e,t)=>({node:e.name,sshHost:e.ssh.host,ok:false,error:t,interfaces:[],peers:[],gpus:[]});async function gatherFacts(e,t){const n=[];let r;let i;const a=await Promise.all(e.nodes.map(async a=>{const c=await t.transportFor(a);if(!c.ok)return failedFacts(a,c.problem.message);const l=c.value;{const c=(0,o.CL)(e,a);const u=await l.run(c.cmd,{stdin:c.stdin,timeoutMs:(0,s.uR)(e.ssh,o.lL)*1e3});if(u.code!==0)return failedFacts(a,`facts probe on ${l.label}: ${(0,d.bu)(u)}: ${(u.stderr||u.stdout).trim().slice(-500)}`);const f=nodeFactsFromProbe(a,u.stdout);if(f.ray)r=f.ray;if(f.rayStatus)i=f.rayStatus;for(const e of f.notes.map(e=>({node:a.name,note:e})))n.push(e);t.onProgress?.(`${a.name}: facts gathered in ${(u.durationMs/1e3).toFixed(1)} s`);return f.facts}}));const c={schemaVersion:1,gatheredAt:(new Date).toISOString(),cluster:e.cluster,nodes:a,...r&&{ray:r}};return{facts:r&&!r.error&&i?(0,l.O)(c,(0,l.F)(r,undefined,i)):c,notes:n}}},1046:(e,t,n)=>{n.d(t,{Oz:()=>runCollective});var s=n(3778);var o=n(6902);var r=n(9961);var i=n(1588);const first=(e,t)=>t.exec(e)?.[1]?.trim();function parseNcclInit(e){const t=[...e.matchAll(/NCCL WARN (.+)$/gm)].map(e=>(e[1]??"").trim());const n=first(e,/NCCL INFO NCCL version (\S+)/);const s=first(e,/NCCL INFO Using network (\S+)/);const o=first(e,/NCCL INFO NCCL_IB_HCA set (?:by environment )?to (\S+)/);const r=first(e,/NCCL INFO NCCL_SOCKET_IFNAME set (?:by environment )?to (\S+)/);const i=first(e,/NCCL INFO NET\/Socket : Using (.+)$/m);return{...n&&{version:n},...s&&{network:s},...o&&{ibHca:o},...r&&{socketIfname:r},ibNoDevice:/NCCL INFO NET\/IB : No device found/.test(e),...i&&{socketInterfaces:i},warnings:t}}function outputTail(e,t=8){return e.split("\n").map(e=>e.trimEnd()).filter(e=>e!==""&&!e.startsWith(r.BN)).slice(-t).join("\n").slice(-1500)}function rankFacts(e,t,n,s){const o=(0,r.T4)(n);const i=/NCCL (INFO|WARN)/.test(n)?parseNcclInit(n):undefined;return{node:e.name,rank:t,fabricIp:e.fabricIp,...o.line&&{line:o.line},...!o.line&&{error:s?`${s} (${o.error})`:o.error??"no result"},tail:outputTail(n),...i&&{nccl:i}}}function collectiveOutcomeLine(e){const t=e.ranks.filter(e=>e.line?.ok);const n=e.ranks.length-t.length;const s=[...new Set(t.map(e=>(0,r.il)(e.line)))];const o=[...new Set(t.flatMap(e=>typeof e.line?.bytes==="number"?[(0,r.jO)(e.line.bytes)]:[]))];const i=t.length>0?`all-reduce of ${o.join(" / ")||"an unreported size"} over ${s.join(" / ")} on ${t.length} of ${e.ranks.length} nodes`:"";if(n===0)return`fabric-test: ${i}`;const a=`${n} of ${e.ranks.length} ranks failed (${e.ranks.filter(e=>!e.line?.ok).map(e=>e.node).join(", ")})`;return`fabric-test: ${t.length>0?`${i}; ${a}`:`no all-reduce completed: ${a}`}`}const collectiveDeadlineMs=e=>((0,r.ti)(e)+s.VJ+15)*1e3;async function runCollective(e,t,n){const a=Date.now();const d=(0,o.Uo)(e);const c=n.timeoutSeconds??e.preflight.collectiveTimeoutSeconds;const l=n.bytes??s.tw;const u=e.container.env["NCCL_IB_HCA"];const f={image:n.image,addr:d.fabricIp,bytes:l,timeoutSeconds:c,...u!==undefined&&{ibHca:u}};const say=e=>n.onProgress?.(e);const m=t.get(d.name);const p=m?await m.run((0,s.ov)(d.fabricIp),{timeoutMs:2e4}):undefined;const h=p&&(0,i.gq)(p)?Number(p.stdout.trim()):Number.NaN;if(!Number.isInteger(h)||h<=0){const t=!p?"no connection to the head":`no free port on ${d.fabricIp}: ${(0,i.bu)(p)} ${p.stderr.trim().slice(-200)}`;const n=e.nodes.map((e,n)=>({node:e.name,rank:n,fabricIp:e.fabricIp,error:t,tail:""}));return{...f,port:0,ranks:n,durationMs:Date.now()-a}}say(`fabric-test: an all-reduce on ${e.nodes.length} nodes at once, rendezvous ${d.fabricIp}:${h}`);const g=await Promise.all(e.nodes.map(async(o,a)=>{const u=t.get(o.name);if(!u)return{node:o.name,rank:a,fabricIp:o.fabricIp,error:"no connection to this node",tail:""};const f=(0,s.Bl)(e,o,n.image,{rank:a,world:e.nodes.length,addr:d.fabricIp,port:h,ip:o.fabricIp,bytes:l,iters:s.di,timeout:c});say(`[${o.name}] fabric-test: rank ${a} of ${e.nodes.length} in a throw-away container of the release image`);const m=Date.now();const p=await u.run(f,{timeoutMs:collectiveDeadlineMs(c),...n.signal&&{signal:n.signal}});const g=rankFacts(o,a,`${p.stdout}\n${p.stderr}`,(0,i.gq)(p)?undefined:`docker run ${(0,i.bu)(p)}`);const y=g.line;say(`[${o.name}] fabric-test: ${y?.ok?`ok in ${((Date.now()-m)/1e3).toFixed(1)} s: rank ${a}, ${(0,r.il)(y)}, ${typeof y.bytes==="number"?`${(0,r.jO)(y.bytes)} all-reduced, `:""}${((y.seconds??0)*1e3).toFixed(0)} ms per all-reduce${y.busbwGBps?`, bus ${y.busbwGBps.toFixed(2)} GB/s`:""}${g.nccl?.network?`, NCCL network ${g.nccl.network}`:""}`:`FAILED: rank ${a}: ${y?.error??g.error}`}`);return g}));const y={...f,port:h,ranks:g,durationMs:Date.now()-a};say(collectiveOutcomeLine(y));return y}},8725:(e,t,n)=>{n.d(t,{oO:()=>u,lL:()=>l,CL:()=>probeCommand});var s=n(3999);const o=["VLLM_HOST_IP","VLLM_HOST_PORT","VLLM_USE_RAY_V2_EXECUTOR_BACKEND","VLLM_USE_V1","NCCL_SOCKET_IFNAME","GLOO_SOCKET_IFNAME","TP_SOCKET_IFNAME","NCCL_IB_HCA","NCCL_IB_DISABLE","UCX_NET_DEVICES","RAY_ADDRESS","RAY_NODE_IP_ADDRESS","RAY_OVERRIDE_NODE_IP_ADDRESS","MASTER_ADDR","HOST_IP","CUDA_VISIBLE_DEVICES","NVIDIA_VISIBLE_DEVICES"];const r=String.raw`
import json, os, platform, re, socket, glob
versions = {"python": platform.python_version()}
out = {"versions": versions}
# The installed distribution's version, read from its metadata: importing ray costs about a second of
# CPU per node (and a real vllm imports torch), while the metadata is what __version__ holds. The
# import stays as the fallback for a package without metadata (a source tree on PYTHONPATH).
try:
    from importlib.metadata import version as dist_version
except Exception:
    dist_version = None
def meta(name):
    try:
        return dist_version(name)
    except Exception:
        return None
for mod in ("ray", "vllm"):
    v = meta(mod)
    if v is None:
        try:
            m = __import__(mod)
            v = getattr(m, "__version__", "unknown")
        except Exception as e:
            out.setdefault("importErrors", {})[mod] = type(e).__name__
    if v is not None:
        versions[mod] = v
# torch and the NCCL its wheel links (nvidia-nccl-cu12/cu13), from metadata only: no import.
for key, names in (("torch", ("torch",)), ("nccl", ("nvidia-nccl-cu13", "nvidia-nccl-cu12", "nvidia-nccl-cu11"))):
    for n in names:
        v = meta(n)
        if v:
            versions[key] = v
            break
# The running vllm serve (the lowest PID of its kind: the process the launch started; its children
# re-title themselves or share its argv). Its environment is what vLLM reads, where os.environ here is
# only the container's configured one.
def is_vllm_serve(argv):
    for i, a in enumerate(argv[:4]):
        if a.rsplit("/", 1)[-1] == "vllm" and argv[i + 1:i + 2] == ["serve"]:
            return True
        if a == "-m" and argv[i + 1:i + 2] == ["vllm.entrypoints.openai.api_server"]:
            return True
        if a == "-m" and argv[i + 1:i + 3] == ["vllm.entrypoints.cli.main", "serve"]:
            return True
    return False
proc = None
for pid in sorted(int(d) for d in os.listdir("/proc") if d.isdigit()):
    if pid == os.getpid():
        continue
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0")]
    except Exception:
        continue
    if argv and argv[-1] == "":
        argv.pop()
    if is_vllm_serve(argv):
        # Values of secret-bearing flags (--api-key, --hf-token, ...) never leave the node.
        secret = re.compile(r"^--?[\w-]*(key|token|secret|password)$", re.I)
        shown = []
        for i, a in enumerate(argv[:400]):
            name, eq, _ = a.partition("=")
            if eq and secret.match(name):
                a = name + "=<redacted>"
            elif i > 0 and secret.match(argv[i - 1]) and "=" not in argv[i - 1]:
                a = "<redacted>"
            shown.append(a)
        proc = {"pid": pid, "argv": shown}
        try:
            with open("/proc/%d/environ" % pid, "rb") as f:
                pairs = [kv.decode("utf-8", "replace").partition("=") for kv in f.read().split(b"\0") if kv]
            proc["env"] = {k: v for k, _, v in pairs if k in ENV_NAMES}
        except Exception as e:
            proc["envError"] = "%s: %s" % (type(e).__name__, e)
        break
if proc is not None:
    # The master address and port as argparse reads them (--flag v, --flag=v, vLLM's --flag_name), for one connect.
    flags = {}
    argv = proc["argv"]
    for i, a in enumerate(argv):
        name, eq, val = a.partition("=")
        name = name.replace("_", "-") if name.startswith("--") else name
        if name in ("--master-addr", "--master-port", "--nnodes", "-n"):
            flags["--nnodes" if name == "-n" else name] = val if eq else (argv[i + 1] if i + 1 < len(argv) else "")
        elif a.startswith("-n") and a[2:].isdigit():
            flags["--nnodes"] = a[2:]
    try:
        nnodes = int(flags.get("--nnodes", "1"))
    except ValueError:
        nnodes = 1
    if nnodes > 1:
        m_ip = flags.get("--master-addr") or "127.0.0.1"
        try:
            m_port = int(flags.get("--master-port") or "29501")
        except ValueError:
            m_port = None
        if m_port is not None:
            res = {"ip": m_ip, "port": m_port}
            try:
                s = socket.create_connection((m_ip, m_port), 2)
                s.close()
                res["state"] = "open"
            except ConnectionRefusedError:
                res["state"] = "refused"
            except socket.timeout:
                res["state"], res["detail"] = "timeout", "no answer within 2 s"
            except Exception as e:
                res["state"], res["detail"] = "error", ("%s" % e)[:200]
            proc["master"] = res
    out["vllmProcess"] = proc
penv = (proc or {}).get("env")
ip = (penv if penv is not None else os.environ).get("VLLM_HOST_IP", "")
src = "VLLM_HOST_IP" if ip else "default-route"
if not ip:
    for fam, dst in ((socket.AF_INET, ("8.8.8.8", 80)), (socket.AF_INET6, ("2001:4860:4860::8888", 80))):
        try:
            s = socket.socket(fam, socket.SOCK_DGRAM)
            s.connect(dst)
            ip = s.getsockname()[0]
            s.close()
            break
        except Exception:
            pass
    if not ip:
        ip, src = "0.0.0.0", "unknown"
out["vllmIp"] = ip
out["vllmIpSource"] = src
for path in sorted(glob.glob("/tmp/ray/session_latest/node_ip_address.json*")):
    try:
        with open(path) as f:
            data = json.load(f)
        vals = [v for v in (data.values() if isinstance(data, dict) else [data]) if isinstance(v, str)]
        if vals:
            out["rayNodeIp"] = vals[0]
            break
    except Exception:
        pass
print(json.dumps(out))
`;const i=String.raw`
import io, contextlib
ray_out = {}
try:
    import ray
    from ray._private.internal_api import get_state_from_address
    ray_out["nodes"] = [{"NodeID": n["NodeID"], "Alive": n["Alive"], "NodeManagerAddress": n["NodeManagerAddress"],
      "NodeManagerHostname": n.get("NodeManagerHostname"), "Resources": n.get("Resources", {})} for n in get_state_from_address("auto").node_table()]
except BaseException as e:
    ray_out["nodes_error"] = ("%s: %s" % (type(e).__name__, e))[-800:]
try:
    from ray.scripts.scripts import status as ray_status_cli
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ray_status_cli.main(args=[], prog_name="ray status", standalone_mode=False)
    ray_out["status"] = buf.getvalue()
except BaseException as e:
    ray_out["status_error"] = ("%s: %s" % (type(e).__name__, e))[-800:]
print("@@ray " + json.dumps(ray_out))
`;const a=String.raw`
import calendar, json, os, re, subprocess, sys, socket, shutil, threading, time
args = json.loads(sys.argv[1])
started_at = None
out = {"errors": []}
host = {}

def run(cmd, timeout=10):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr
    except FileNotFoundError:
        return 127, "", cmd[0] + ": not found"
    except subprocess.TimeoutExpired:
        return 124, "", " ".join(cmd[:3]) + ": timed out after %ss" % timeout

def flat(text, n=400):
    return " ".join(text.split())[:n]

def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except Exception:
        return None

def number(text):
    try:
        return int(text)
    except Exception:
        return None

def route(to):
    code, so, se = run(["ip", "-j", "route", "get", to], 5)
    if code != 0:
        return {"to": to, "error": (se or so).strip() or "exit %d" % code}
    try:
        r = json.loads(so)[0]
    except Exception as e:
        return {"to": to, "error": "unreadable ip route output: %s" % e}
    res = {"to": to}
    for k in ("dev", "prefsrc", "gateway"):
        if r.get(k):
            res[{"prefsrc": "src", "gateway": "via"}.get(k, k)] = r[k]
    return res

# Ports are probed on threads while the rest runs: a dropped port costs its timeout once, not per port.
ports = []
def probe_port(p):
    res = {"peer": p["peer"], "ip": p["ip"], "port": p["port"], "purpose": p["purpose"]}
    try:
        s = socket.create_connection((p["ip"], p["port"]), 2)
        s.close()
        res["state"] = "open"
    except ConnectionRefusedError:
        res["state"] = "refused"
    except socket.timeout:
        res["state"] = "timeout"
        res["detail"] = "no answer within 2 s"
    except Exception as e:
        res["state"] = "error"
        res["detail"] = flat(str(e), 200)
    ports.append(res)
threads = [threading.Thread(target=probe_port, args=(p,)) for p in args.get("ports", [])]

# Head -> worker SSH over the fabric (relay), every worker on its own thread while the rest runs:
# one handshake's time in all, not one per worker one after the other.
relay = [None] * len(args.get("relay", []))
def probe_relay(i, t):
    c, so2, se2 = run(["ssh"] + args.get("sshOptions", []) + ["-p", str(t["port"]), "-l", t["user"], t["ip"], "true"], 15)
    relay[i] = {"ip": t["ip"], "code": c, "output": flat(se2 or so2)}
relay_threads = [threading.Thread(target=probe_relay, args=(i, t)) for i, t in enumerate(args.get("relay", []))]
for t in threads + relay_threads:
    t.start()

out["hostname"] = socket.gethostname()
host["kernel"] = os.uname().release

def sysnet(name, key):
    return read("/sys/class/net/%s/%s" % (name, key))

ifaces = []
code, so, se = run(["ip", "-j", "addr"], 5)
if code == 0:
    for i in json.loads(so):
        ifaces.append({
            "name": i.get("ifname"),
            "up": "UP" in i.get("flags", []) or i.get("operstate") == "UP",
            "flags": i.get("flags", []),
            "addresses": ["%s/%s" % (a["local"], a["prefixlen"]) for a in i.get("addr_info", []) if a.get("local")],
        })
else:
    out["errors"].append("ip -j addr: " + (se or so).strip())
    # Without iproute2 (a minimal host), the kernel still lists its links.
    try:
        for name in sorted(os.listdir("/sys/class/net")):
            ifaces.append({"name": name, "up": sysnet(name, "operstate") == "up", "addresses": []})
    except Exception:
        pass
for i in ifaces:
    state = sysnet(i["name"], "operstate")
    if state:
        i["operstate"] = state
    mtu = number(sysnet(i["name"], "mtu"))
    if mtu is not None:
        i["mtu"] = mtu
    # -1 (virtio, no carrier) and EINVAL (loopback, virtual links): the kernel does not know the speed.
    speed = number(sysnet(i["name"], "speed"))
    if speed is not None and speed > 0:
        i["speedMbps"] = speed
out["interfaces"] = ifaces
out["defaultRoute"] = route("8.8.8.8")

peers = []
for p in args["peers"]:
    r = route(p["ip"])
    peer = {"peer": p["name"], "ip": p["ip"], "route": r}
    if "error" not in r:
        if shutil.which("ping"):
            c, so2, se2 = run(["ping", "-n", "-c", "1", "-W", "2", p["ip"]], 5)
            lines = (se2 or so2).strip().splitlines()
            peer["reachable"] = c == 0
            peer["detail"] = "ping: ok" if c == 0 else "ping: " + (lines[-1] if lines else "no reply")
        else:
            try:
                s = socket.create_connection((p["ip"], p.get("port", 22)), 3)
                s.close()
                peer["reachable"], peer["detail"] = True, "tcp/%s: ok" % p.get("port", 22)
            except ConnectionRefusedError:
                peer["reachable"], peer["detail"] = True, "tcp/%s: refused, so the host answered" % p.get("port", 22)
            except Exception as e:
                peer["reachable"], peer["detail"] = False, "tcp/%s: %s" % (p.get("port", 22), e)
    peers.append(peer)
out["peers"] = peers

gpus = []
fields = ["index", "name", "uuid", "memory.total", "memory.free", "driver_version"]
code, so, se = run(["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"], 15)
if code == 0:
    unified = False
    for line in so.strip().splitlines():
        parts = [x.strip() for x in line.split(",")]
        if len(parts) < 2 or not parts[0].isdigit():
            continue
        g = {"index": int(parts[0]), "name": parts[1]}
        if len(parts) > 2 and parts[2]:
            g["uuid"] = parts[2]
        total = number(parts[3]) if len(parts) > 3 else None
        free = number(parts[4]) if len(parts) > 4 else None
        if total is not None:
            g["memoryTotalMiB"] = total
        if free is not None:
            g["memoryFreeMiB"] = free
        if len(parts) > 5 and parts[5] and "driverVersion" not in host:
            host["driverVersion"] = parts[5]
        # GB10 (DGX Spark) shares the host's memory; its driver reports no memory of its own ([N/A]).
        if total is None or "GB10" in parts[1]:
            unified = True
        gpus.append(g)
    if gpus:
        host["unifiedMemory"] = unified
    c2, so2, se2 = run(["nvidia-smi"], 15)
    m = re.search(r"CUDA Version:\s*([0-9.]+)", so2)
    if m:
        host["cudaVersion"] = m.group(1)
else:
    host["gpuError"] = {"missing": code == 127, "error": flat((se or so).strip() or "exit %d" % code)}
    out["errors"].append("nvidia-smi: " + host["gpuError"]["error"])
out["gpus"] = gpus
m = re.search(r"Kernel Module(?: for \S+)?\s+([0-9][0-9.]*)", read("/proc/driver/nvidia/version") or "")
if m:
    host["driverVersion"] = m.group(1)

meminfo = read("/proc/meminfo") or ""
for key, name in (("MemTotal", "memTotalBytes"), ("MemAvailable", "memAvailableBytes")):
    m = re.search(r"^%s:\s+(\d+) kB" % key, meminfo, re.M)
    if m:
        host[name] = int(m.group(1)) * 1024

try:
    host["rdmaDevices"] = sorted(os.listdir("/sys/class/infiniband"))
except FileNotFoundError:
    host["rdmaDevices"] = []
except Exception:
    pass

code, so, se = run(["dmesg"], 3)
dmesg = so if code == 0 else None

docker = {"ok": False}
# The legacy prestart hook: dockerd registers its --gpus device driver when this is on its PATH.
hook = shutil.which("nvidia-container-runtime-hook")
if hook:
    docker["nvidiaHook"] = hook
code, so, se = run(["docker", "info", "--format", "{{json .}}"], 15)
info = None
if code == 0:
    try:
        info = json.loads(so)
    except Exception:
        pass
if info and info.get("ServerVersion") and str(info.get("DockerRootDir", "")).startswith("/"):
    docker.update({"ok": True, "version": info["ServerVersion"], "rootDir": info["DockerRootDir"], "runtimes": sorted((info.get("Runtimes") or {}).keys())})
    # CDI: the spec directories dockerd reads (none: CDI is off) and the CDI devices it found there.
    if "CDISpecDirs" in info:
        docker["cdiSpecDirs"] = [str(d) for d in (info.get("CDISpecDirs") or [])]
    if isinstance(info.get("DiscoveredDevices"), list):
        docker["cdiDevices"] = sorted(str(d.get("ID")) for d in info["DiscoveredDevices"] if isinstance(d, dict) and d.get("Source") == "cdi" and d.get("ID"))
    try:
        st = os.statvfs(info["DockerRootDir"])
        docker["rootFreeBytes"] = st.f_bavail * st.f_frsize
    except Exception as e:
        out["errors"].append("free space under %s: %s" % (info["DockerRootDir"], e))
else:
    docker["missing"] = code == 127
    err = (se or so).strip()
    if isinstance(info, dict) and info.get("ServerErrors"):
        err = "; ".join(str(e) for e in info["ServerErrors"])
    docker["error"] = "exit %d: %s" % (code, flat(err or "docker info printed no server version"))
host["docker"] = docker

# The NVIDIA container tooling besides docker: nvidia-cdi-hook (docker 29.2+ serves --gpus through CDI
# with it), the NVIDIA runtime's mode, and each CDI spec dockerd or the runtime would read. A spec names
# the driver's files by version (libcuda.so.580.95.05): after a driver upgrade they are gone.
nv = {"cdiSpecs": []}
cdi_hook = shutil.which("nvidia-cdi-hook")
if cdi_hook:
    nv["cdiHook"] = cdi_hook
section = None
for line in (read("/etc/nvidia-container-runtime/config.toml") or "").splitlines():
    s = line.strip()
    if s.startswith("["):
        section = s.strip("[]").strip()
    elif section == "nvidia-container-runtime":
        m = re.match(r'mode\s*=\s*"([^"]*)"', s)
        if m:
            nv["runtimeMode"] = m.group(1)
RUNTIME_STATE = ("/dev/", "/run/", "/var/run/", "/proc/", "/sys/", "/tmp/")
# dockerd's directories and CDI's defaults (the NVIDIA runtime's), lowest priority first: a later spec of a kind wins.
spec_dirs, seen = [], set()
for d in (docker.get("cdiSpecDirs") or []) + ["/etc/cdi", "/var/run/cdi"]:
    real = os.path.realpath(d)
    if real not in seen:
        seen.add(real)
        spec_dirs.append(d)
for d in spec_dirs:
    try:
        names = sorted(n for n in os.listdir(d) if n.endswith((".yaml", ".yml", ".json")))
    except Exception:
        continue
    for n in names[:20]:
        path = os.path.join(d, n)
        try:
            with open(path, errors="replace") as f:
                text = f.read(4000000)
        except Exception as e:
            nv["cdiSpecs"].append({"path": path, "driverVersions": [], "hostPaths": 0, "missing": [], "missingCount": 0, "error": flat(str(e), 200)})
            continue
        if n.endswith(".json"):
            try:
                doc = json.loads(text)
            except Exception as e:
                nv["cdiSpecs"].append({"path": path, "driverVersions": [], "hostPaths": 0, "missing": [], "missingCount": 0, "error": flat("not JSON: %s" % e, 200)})
                continue
            kind = doc.get("kind") if isinstance(doc, dict) else None
            found = []
            def walk(x):
                if isinstance(x, dict):
                    for k, v in x.items():
                        if k == "hostPath" and isinstance(v, str):
                            found.append(v)
                        else:
                            walk(v)
                elif isinstance(x, list):
                    for v in x:
                        walk(v)
            walk(doc)
            paths = sorted(set(found))
        else:
            # YAML without a YAML library: the top-level kind and every hostPath value, quoted or not.
            m = re.search(r'^kind:\s*["\']?([^"\'\s]+)', text, re.M)
            kind = m.group(1) if m else None
            paths = sorted(set(re.findall(r'hostPath:\s*["\']?([^"\'\s]+)', text)))
        if kind is not None and "nvidia" not in str(kind):
            continue
        versions = set()
        for p in paths:
            m = re.search(r"\.so\.(\d{3,}\.\d+(?:\.\d+)?)$", p) or re.search(r"/firmware/nvidia/(\d{3,}\.\d+(?:\.\d+)?)/", p)
            if m:
                versions.add(m.group(1))
        # Device nodes and sockets are runtime state, absent on an idle host: only files count.
        files = [p for p in paths if p.startswith("/") and not p.startswith(RUNTIME_STATE)]
        missing = [p for p in files if not os.path.lexists(p)]
        spec = {"path": path, "driverVersions": sorted(versions), "hostPaths": len(files), "missing": missing[:5], "missingCount": len(missing)}
        if kind:
            spec["kind"] = kind
        nv["cdiSpecs"].append(spec)
host["nvidiaContainer"] = nv

# A user-space OOM killer that acts before the kernel's (which on unified memory may come too late):
# each known one's systemd unit state, and whether a process of that name runs (in a container too).
GUARDS = ["earlyoom", "systemd-oomd", "nohang", "nohang-desktop"]
guards = {"running": []}
code, so, se = run(["systemctl", "is-active"] + [g + ".service" for g in GUARDS], 5)
states = so.split()
if len(states) == len(GUARDS):
    guards["units"] = dict(zip(GUARDS, states))
else:
    guards["unitsError"] = flat((se or so).strip() or "exit %d" % code, 200)
running = set()
try:
    for d in os.listdir("/proc"):
        if d.isdigit():
            comm = read("/proc/%s/comm" % d)
            if comm in GUARDS or comm == "oomd":
                running.add(comm)
except Exception:
    pass
guards["running"] = sorted(running)
host["oomGuards"] = guards

# The tool's own data directories (the release state: releases, the lock, the audit log): free
# space on the filesystem that holds each, read at its nearest existing ancestor before a first deploy.
data_dirs = []
for d in args.get("dataDirs", []):
    at = d["path"]
    while not os.path.isdir(at) and at not in ("/", ""):
        at = os.path.dirname(at)
    try:
        st = os.statvfs(at or "/")
        data_dirs.append({"label": d["label"], "path": d["path"], "statPath": at or "/", "freeBytes": st.f_bavail * st.f_frsize, "totalBytes": st.f_blocks * st.f_frsize})
    except Exception as e:
        out["errors"].append("free space under %s: %s" % (d["path"], e))
if data_dirs:
    host["dataDirs"] = data_dirs

for t in relay_threads:
    t.join()
if args.get("relay"):
    host["relay"] = relay
out["host"] = host

name = args["container"]
if docker["ok"]:
    code, so, se = run(["docker", "inspect", "--type", "container", name], 15)
    if code == 0:
        c = json.loads(so)[0]
        env = {}
        for kv in c.get("Config", {}).get("Env") or []:
            k, _, v = kv.partition("=")
            if k in ENV_NAMES:
                env[k] = v
        cont = {"name": name, "running": bool(c.get("State", {}).get("Running")), "env": env, "versions": {}}
        if cont["running"]:
            started_at = c.get("State", {}).get("StartedAt")
        if c.get("Config", {}).get("Image"):
            cont["imageRef"] = c["Config"]["Image"]
        if c.get("Image"):
            cont["imageId"] = c["Image"]
        if cont["running"] and args.get("exec", True):
            # On the head, Ray's view comes from the same Python process (RAY_PY after CONTAINER_PY).
            program = "ENV_NAMES = %s\n" % json.dumps(ENV_NAMES) + CONTAINER_PY + ("\n" + RAY_PY if args.get("ray") else "")
            code, so, se = run(["docker", "exec", name, "python3", "-c", program], 90 if args.get("ray") else 60)
            lines = so.splitlines()
            ray_at = [i for i, l in enumerate(lines) if l.startswith("@@ray ")]
            # CONTAINER_PY's line is the last one before Ray's (the last line on a worker).
            inside_lines = [l for l in lines[: ray_at[0] if ray_at else len(lines)] if l.strip()]
            try:
                inside = json.loads(inside_lines[-1])
                inside.pop("importErrors", None)
                cont.update(inside)
            except Exception:
                out["errors"].append("probe inside %s failed: %s" % (name, (se or so).strip()[-500:]))
            if args.get("ray"):
                try:
                    r = json.loads(lines[ray_at[-1]][len("@@ray "):])
                except Exception:
                    r = {"nodes_error": ((se or so).strip()[-800:] or "exit %d" % code)}
                if "nodes" in r:
                    out["rayNodes"] = r["nodes"]
                else:
                    out["rayError"] = r.get("nodes_error") or "no node list"
                if "status" in r:
                    out["rayStatus"] = r["status"]
        out["container"] = cont
    elif "No such" in (se + so) or "no such" in (se + so):
        out["container"] = None
    else:
        out["errors"].append("docker inspect %s: %s" % (name, (se or so).strip() or "exit %d" % code))
# The kernel log's GPU out-of-memory and OOM-killer lines, since the release's container started
# (the start-up the lines belong to), else of the last hour: older ones are another run's.
if dmesg is not None:
    since = time.time() - args.get("kernelLogWindowSeconds", 3600)
    started = str((started_at or ""))[:19]
    try:
        since = calendar.timegm(time.strptime(started, "%Y-%m-%dT%H:%M:%S"))
    except Exception:
        pass
    try:
        boot = time.time() - float((read("/proc/uptime") or "0").split()[0])
    except Exception:
        boot = None
    pat = re.compile(r"NV_ERR_NO_MEMORY|Out of memory|oom-kill|invoked oom-killer")
    hits = []
    for l in dmesg.splitlines():
        if not pat.search(l):
            continue
        m = re.match(r"\s*\[\s*(\d+(?:\.\d+)?)\]", l)
        if m and boot is not None and boot + float(m.group(1)) < since:
            continue
        hits.append(l.strip()[:300])
    host["kernelLog"] = hits[-10:]
for t in threads:
    t.join()
out["ports"] = sorted(ports, key=lambda p: (p["peer"], p["port"]))
print(json.dumps(out))
`;const d=47613;const c={"--node-manager-port":"Ray node manager (pinned)","--object-manager-port":"Ray object manager (pinned)","--min-worker-port":"Ray worker ports (first of the pinned range)"};function pinnedRayPorts(e){const t=[];e.forEach((n,s)=>{for(const[o,r]of Object.entries(c)){const i=n===o?e[s+1]:n.startsWith(`${o}=`)?n.slice(o.length+1):undefined;const a=i!==undefined&&/^\d+$/.test(i)?Number(i):undefined;if(a!==undefined&&a>0&&a<65536)t.push({port:a,purpose:r})}});return t}function portsToProbe(e,t){const n=e.vllm.executorBackend==="mp";const s=n?[]:pinnedRayPorts(e.ray.extraArgs);const o=n?{port:e.vllm.masterPort,purpose:"vLLM's rendezvous store (vllm.masterPort, --master-port)"}:{port:e.ray.port,purpose:"Ray GCS (ray.port)"};return e.nodes.filter(e=>e.name!==t.name).flatMap(e=>[...e.role==="head"?[o]:[],...s,{port:d,purpose:"ephemeral range (NCCL, Ray workers)"}].map(t=>({peer:e.name,ip:e.fabricIp,...t})))}const l=120;const u=[`CONTAINER_PY = ${JSON.stringify(r)}`,`RAY_PY = ${JSON.stringify(i)}`,`ENV_NAMES = ${JSON.stringify(o)}`,a].join("\n");function probeCommand(e,t,n={}){const o=(n.mode??"full")==="full";const r=n.relay&&t.role==="head"?n.relay.targets:[];const i={container:e.container.name,peers:e.nodes.filter(e=>e.name!==t.name).map(e=>({name:e.name,ip:e.fabricIp,port:22})),ray:o&&t.role==="head"&&e.vllm.executorBackend==="ray",exec:o,ports:portsToProbe(e,t),...r.length>0&&{relay:r,sshOptions:n.relay?.sshOptions},...n.kernelLogWindowSeconds!==undefined&&{kernelLogWindowSeconds:n.kernelLogWindowSeconds},...n.dataDirs&&n.dataDirs.length>0&&{dataDirs:n.dataDirs}};return{cmd:(0,s.vU)("python3","-",JSON.stringify(i)),stdin:u}}},6966:(e,t,n)=>{n.d(t,{U:()=>checkLaunchScriptWhenNeeded});var s=n(3024);var o=n.n(s);var r=n(6760);var i=n.n(r);var a=n(1380);var d=n(1628);async function checkLaunchScriptWhenNeeded(...[e,t]){const{checkLaunchScript:s}=await Promise.all([n.e(914),n.e(648)]).then(n.bind(n,4648));return s(e,t.readSourced?t:{...t,readSourced:sourcedFileReader((0,r.resolve)(t.path))})}function sourcedFileReader(e,t=process.env){const n=repositoryOf(e,t);const o=(0,s.existsSync)(n)?(0,s.realpathSync)(n):n;return e=>{const t=(0,r.resolve)(e);let n;try{n=(0,s.realpathSync)(t)}catch(e){const t=e.code;return(0,d.f)((0,d.C)("SOURCE_UNREADABLE",t==="ENOENT"?"does not exist":`cannot be read (${t??e.message})`))}if(!within(o,n))return(0,d.f)((0,d.C)("SOURCE_UNREADABLE",`is outside the repository ${o}${n!==t?` (it resolves to ${n})`:""}`));const i=(0,s.statSync)(n);if(!i.isFile())return(0,d.f)((0,d.C)("SOURCE_UNREADABLE","is not a regular file"));if(i.size>a.v7)return(0,d.f)((0,d.C)("SOURCE_UNREADABLE",`is ${i.size} bytes, more than the ${a.v7} a launch script may be`));return(0,d.ok)((0,s.readFileSync)(n,"utf8"))}}const within=(e,t)=>{const n=(0,r.relative)(e,t);return!n.startsWith("..")&&!(0,r.isAbsolute)(n)};function repositoryOf(e,t){for(let t=(0,r.dirname)(e);;t=(0,r.dirname)(t)){if((0,s.existsSync)((0,r.join)(t,".git")))return t;if((0,r.dirname)(t)===t)break}const n=t.GITHUB_WORKSPACE?(0,r.resolve)(t.GITHUB_WORKSPACE):undefined;return n&&within(n,e)?n:(0,r.dirname)(e)}}};